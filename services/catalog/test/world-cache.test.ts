import { worldCacheSuite } from './world-cache.suite';

worldCacheSuite(false);
