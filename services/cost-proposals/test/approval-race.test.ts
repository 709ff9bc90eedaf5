/** The approval race on the embedded database; see `approval-race.ts`. */
import { approvalRaceSuite } from './approval-race';

approvalRaceSuite(false);
