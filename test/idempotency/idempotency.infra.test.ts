/** Idempotency-Key on the Postgres server, where requests with one key really race; see `idempotency.suite.ts`. */
import { idempotencySuite } from './idempotency.suite';

idempotencySuite(true);
