/** Idempotency-Key on the embedded database; see `idempotency.suite.ts`. */
import { idempotencySuite } from './idempotency.suite';

idempotencySuite(false);
