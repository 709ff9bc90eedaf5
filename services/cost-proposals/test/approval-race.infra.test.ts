/** The approval race on the Postgres server, where transactions run side by side; see `approval-race.ts`. */
import { approvalRaceSuite } from './approval-race';

approvalRaceSuite(true);
