/** The approval race on the embedded database; see `approval-race.suite.ts`. */
import { approvalRaceSuite } from './approval-race.suite';

approvalRaceSuite(false);
