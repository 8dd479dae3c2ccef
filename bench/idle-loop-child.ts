/**
 * Child of settle-loop's host floor (D142): a process whose event loop has nothing to do, watched
 * for argv[2] seconds with the instrument the loop-delay figures use (loop-delay.ts). Every delay it
 * sees comes from the machine (the hypervisor pausing the VM, the kernel, other processes), none
 * from the venue, so it is the floor under any event loop's max on this host in that stretch.
 */
import { watchLoop } from './loop-delay.ts';

const seconds = Number(process.argv[2]);
if (!(seconds > 0)) throw new Error('idle-loop-child.ts takes the seconds to watch');
const watch = watchLoop();
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
process.stdout.write(JSON.stringify(watch.stop()));
process.exit(0);
