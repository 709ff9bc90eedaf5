/**
 * Turns off V8's allocation-site pretenuring in a hub process. Once most objects made by one
 * object or array literal have outlived a young-generation collection, V8 makes that literal
 * allocate straight in the old generation from then on. Such an object that dies soon after
 * stays there until the next full collection, and until then every young-generation collection
 * keeps alive whatever it points to and promotes it to the old generation as well.
 *
 * In a burst of webhook deliveries over HTTP that took most of what the attempts make with it:
 * of 8,000 attempts living a few milliseconds each, 53 to 59 MB was promoted (mostly their
 * requests, headers and answers) and young collections took 270 to 360 ms; without pretenuring
 * 11 to 12 MB and 95 to 118 ms, and the process spent a fifth to a quarter less CPU on the burst
 * (bench/RESULTS.md). Objects that do live long are copied once more on their way to the old
 * generation instead.
 */
import v8 from 'node:v8';

export function keepShortLivedObjectsYoung(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
