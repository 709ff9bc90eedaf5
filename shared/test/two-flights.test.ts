/** Two-flight transactions on the embedded database, whose connection runs statements one at a time. */
import { loadConfig, openDatabase } from '../src';
import { twoFlightsSuite } from './two-flights.suite';

twoFlightsSuite(() => openDatabase(loadConfig({}), {}));
