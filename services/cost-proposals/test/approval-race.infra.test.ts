/** The approval race on the Postgres server, where transactions run side by side; see `approval-race.suite.ts`. */
import { approvalRaceSuite } from './approval-race.suite';

approvalRaceSuite(true);
