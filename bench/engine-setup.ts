/**
 * What setting up an engine costs, from a build's sources: a copy of the live VM (what a state
 * view makes: src/node/state/stateViews.ts, through src/node/ethereumjs/vmCopy.ts) and a new
 * provider to its first answer (row W6b's work, its close not counted, without the bench's full GC before each). Each
 * figure is this process's CPU per operation, the median of rounds after a warm-up.
 *
 *   npx tsx bench/engine-setup.ts [rounds=5] [--from <repo root>]
 *
 * `--from` measures another checkout's sources (a worktree of an earlier commit, with a
 * `node_modules` of its own or a symlink to this one) for before/after figures; alternate the two.
 */
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const fromIndex = args.indexOf("--from");
const root = fromIndex === -1 ? fileURLToPath(new URL("..", import.meta.url)) : args[fromIndex + 1]!;
const [roundsArg = "5"] = args.filter((_, index) => fromIndex === -1 || (index !== fromIndex && index !== fromIndex + 1));
const rounds = Number(roundsArg);

const [{ createPreconfProvider }, { copyVmOver }, { default: FakeTimers }] = await Promise.all([
  import(`${root}/src/index.ts`) as Promise<typeof import("../src/index.ts")>,
  import(`${root}/src/node/ethereumjs/vmCopy.ts`) as Promise<typeof import("../src/node/ethereumjs/vmCopy.ts")>,
  import("@sinonjs/fake-timers"),
]);

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const newProvider = async () => {
  const provider = await createPreconfProvider({ clock: FakeTimers.createClock(1_700_000_000_000) });
  await provider.request({ method: "eth_blockNumber", params: [] });
  return provider;
};
/** As W6b: the CPU of a provider made and asked once, in µs (its close is not counted). */
async function providerCost(): Promise<number> {
  const start = cpuUs();
  const made = await newProvider();
  const cost = cpuUs() - start;
  await made.close();
  return cost;
}

// The live VM of a chain that has run a dry run (its state views made).
const provider = await newProvider();
await provider.request({ method: "eth_call", params: [{ to: "0x0000000000000000000000000000000000000001" }, "latest"] });
const { vm } = (provider as unknown as { chain: { vm: Parameters<typeof copyVmOver>[0] } }).chain;

async function perOperation(count: number, operation: () => Promise<unknown>): Promise<number> {
  const start = cpuUs();
  for (let i = 0; i < count; i++) await operation();
  return (cpuUs() - start) / count;
}

const COPIES = 1000;
const PROVIDERS = 100;
const copies: number[] = [];
const providers: number[] = [];
await perOperation(COPIES, () => copyVmOver(vm, vm.stateManager));
for (let round = 0; round < rounds; round++) copies.push(await perOperation(COPIES, () => copyVmOver(vm, vm.stateManager)));
async function providersRound(): Promise<number> {
  let total = 0;
  for (let i = 0; i < PROVIDERS; i++) total += await providerCost();
  return total / PROVIDERS;
}
await providersRound();
for (let round = 0; round < rounds; round++) providers.push(await providersRound());
const list = (values: number[]) => values.map((value) => value.toFixed(0)).join(" ");
console.log(`${root}: CPU µs per operation, median of ${rounds} rounds`);
console.log(`  VM copy (a state view's):          ${median(copies).toFixed(0)}  [${list(copies)}]`);
console.log(`  new provider to its first answer:  ${median(providers).toFixed(0)}  [${list(providers)}]`);
process.exit(0);
