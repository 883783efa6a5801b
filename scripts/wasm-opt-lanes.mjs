// wasm-opt for many modules at once, as the page's build needs it (scripts/assemble-page.mjs):
// binaryen's JavaScript API in one worker thread per core, each module read, optimized and
// written in memory, with exactly what `wasm-opt IN -o OUT <flags>` does (the same bytes: the
// build compares them when SKIFF_CHECK_WASM_OPT=1).
//
// Why not the wasm-opt command: npm's binaryen is itself a 10 MB WebAssembly program, and each
// command started V8 on it again (compiling it, then tiering its hot functions up while it ran).
// With 173 modules that was most of the build's wasm-opt time: 40 chunks took 218 s of CPU one
// command each and 54 s in one process. A lane here compiles binaryen once and keeps it warm.
//
//   import { optimizeAll } from './wasm-opt-lanes.mjs';
//   await optimizeAll([[input, output], ...], { deeper: true, lanes: 2 });
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The flags the page is optimized with, as binaryen's API takes them; `flags` is the same for
 * the wasm-opt command (SKIFF_CHECK_WASM_OPT=1 runs it and compares).
 *
 * rustc 1.95 emits bulk-memory, sign-ext, reference-types... by default: binaryen must be told,
 * or it rejects the module. low-memory-unused lets it fold `ptr + C` (C < 1024) into the
 * load/store offset, which is exact unless the add wraps past 4 GiB into the first KiB of
 * memory; Rust never forms such an address (4.9 KiB gzip). The custom sections (names,
 * producers, target_features: about 150 bytes in each module) are read by no browser.
 * `--flatten --rereloop` rebuilds each function's control flow from its basic blocks, after
 * which -Oz finds more to fold (6 KiB gzip less than -Oz alone on this page).
 */
export const FLAGS = [
  '--enable-bulk-memory', '--enable-bulk-memory-opt', '--enable-nontrapping-float-to-int',
  '--enable-sign-ext', '--enable-reference-types', '--enable-multivalue', '--enable-mutable-globals',
  '--low-memory-unused', '--strip-debug', '--strip-producers', '--strip-target-features', '-Oz',
];
export const DEEPER_FLAGS = ['--flatten', '--rereloop', '-Oz', '-Oz'];

/**
 * Optimizes every [input, output] pair, the largest first, in `lanes` worker threads. Resolves
 * to [[name, seconds]...]; rejects with the first module that failed, naming it.
 */
export async function optimizeAll(jobs, { deeper = true, lanes = 1 } = {}) {
  const queue = [...jobs].sort((a, b) => statSync(b[0]).size - statSync(a[0]).size);
  const times = [];
  const self = fileURLToPath(import.meta.url);
  const lane = () =>
    new Promise((resolve, reject) => {
      const worker = new Worker(self);
      let current = null;
      const next = () => {
        current = queue.shift();
        if (!current) {
          worker.terminate().then(() => resolve());
          return;
        }
        worker.postMessage({ input: current[0], output: current[1], deeper });
      };
      worker.on('message', (msg) => {
        if (msg.error) {
          queue.length = 0;
          worker.terminate();
          reject(new Error(`wasm-opt ${path.basename(current[0])}: ${msg.error}`));
          return;
        }
        if (msg.seconds !== undefined) times.push([path.basename(current[0]), msg.seconds]);
        next();
      });
      // A crash of the thread itself (binaryen aborts on a module it cannot read).
      worker.on('error', (err) => reject(new Error(`wasm-opt ${current ? path.basename(current[0]) : ''}: ${err.message}`)));
      worker.on('online', next);
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, jobs.length)) }, lane));
  return times;
}

// ---- the lane (a worker thread) ----
if (!isMainThread) {
  const { default: binaryen } = await import('binaryen');
  const F = binaryen.Features;
  // The features FLAGS enable, in the API's terms.
  const features = F.MutableGlobals | F.NontrappingFPToInt | F.BulkMemory | F.BulkMemoryOpt |
    F.SignExt | F.ReferenceTypes | F.Multivalue;
  // -Oz, and what the wasm-opt command turns on with it: StackIR is generated and optimized
  // as the binary is written (without it the output is about 0.3 % larger).
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(2);
  binaryen.setLowMemoryUnused(true);
  binaryen.setGenerateStackIR(true);
  binaryen.setOptimizeStackIR(true);
  binaryen.setDebugInfo(false);
  parentPort.on('message', ({ input, output, deeper }) => {
    const t0 = Date.now();
    let mod;
    try {
      mod = binaryen.readBinary(readFileSync(input), features);
      mod.runPasses(['strip-debug', 'strip-producers', 'strip-target-features']);
      mod.optimize();
      if (deeper) {
        mod.runPasses(['flatten', 'rereloop']);
        mod.optimize();
        mod.optimize();
      }
      writeFileSync(output, mod.emitBinary());
      parentPort.postMessage({ seconds: (Date.now() - t0) / 1000 });
    } catch (err) {
      parentPort.postMessage({ error: String(err?.message ?? err) });
    } finally {
      mod?.dispose();
    }
  });
}
