/**
 * Turns off V8's allocation-site pretenuring in a hub process. Once most objects made by one
 * object or array literal have outlived a young-generation collection, V8 makes that literal
 * allocate straight in the old generation from then on. Such an object that dies soon after
 * stays there until the next full collection, and until then every young-generation collection
 * keeps alive whatever it points to and promotes it to the old generation as well.
 *
 * A burst of webhook deliveries over HTTP sends most of what its attempts make (their requests,
 * headers and answers, which live a few milliseconds each) to the old generation this way, and
 * its young collections grow long; without pretenuring far less is promoted and the process
 * spends less CPU on the burst. Objects that do live long are copied once more on their
 * way to the old generation instead.
 */
import v8 from 'node:v8';

export function keepShortLivedObjectsYoung(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
