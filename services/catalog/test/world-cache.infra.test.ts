import { worldCacheSuite } from './world-cache.cases';

worldCacheSuite(true);
