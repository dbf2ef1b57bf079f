import { runBatchedConversionBench } from '../src/batched-conversion';
import { runBulkZipBench } from '../src/bulk-zip';
import { runConversionBench } from '../src/conversion';
import { runEndToEndBench } from '../src/e2e';
import { runDeliverySweepBench } from '../src/delivery-sweep';
import { runExpressionsBench } from '../src/expressions';
import { runFillBench } from '../src/fill';
import { runGatewayBench } from '../src/gateway';
import { runMemoryBench } from '../src/memory';
import { runPreviewBench } from '../src/preview';
import { runPrinterLifeBench } from '../src/printer-life';
import { runRecyclingBench } from '../src/recycling';
import { runSpreadsheetBench } from '../src/spreadsheet';
import { machineBusySeconds } from '../src/process-cpu';
import { serviceEnvFromArgv } from '../src/report';
import { percentile, runClosedLoop } from '../src/stats';

// Each benchmark in its smoke mode: a few iterations through the real parts, nothing written.
const quiet = { smoke: true, log: () => undefined };

describe('benchmarks, smoke mode', () => {
  it('computes percentiles and closed-loop runs', async () => {
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 99)).toBe(40);
    let inFlight = 0;
    let most = 0;
    const run = await runClosedLoop(10, 3, async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
    });
    expect(run.count).toBe(10);
    expect(most).toBe(3);
  });

  it("reads the machine's busy time, which grows at least by this process's own CPU", () => {
    const before = machineBusySeconds();
    const self = process.cpuUsage();
    while (process.cpuUsage(self).user < 300_000); // 0.3 s of CPU
    const busy = machineBusySeconds() - before;
    expect(busy).toBeGreaterThanOrEqual(0.25); // ticks are 10 ms; the other core may be idle
  });

  it('conversion: warm pool and per-call driver both convert, and every set-up', async () => {
    const { drivers, profiles, html } = await runConversionBench(quiet);
    expect(html.chromium.count).toBe(8);
    expect(html.chromium.engineCpuMs).toBeGreaterThan(0);
    expect(html.libreoffice.engineCpuMs).toBeGreaterThan(0);
    expect(drivers['letter@1']!.warm.count).toBe(2);
    expect(drivers['report@2']!.perCall.perSecond).toBeGreaterThan(0);
    expect(profiles.letter!.tuned!.count).toBe(2);
    expect(profiles.letter!['tuned-tmpfs']!.count).toBe(2);
    expect(profiles.report!.untuned.cpuMs).toBeGreaterThan(0);
  }, 180_000);

  it('printer life: both pools print every block, and Chromium CPU is counted for each', async () => {
    const blocks = await runPrinterLifeBench(quiet);
    expect(blocks.map((block) => block.printsPerPage)).toEqual([2, 4]);
    for (const block of blocks) {
      expect(block.keptMs).toBeGreaterThan(0);
      expect(block.freshenedMs).toBeGreaterThan(0);
    }
  }, 120_000);

  it('recycling: both pools of each engine make every document of their blocks', async () => {
    const results = await runRecyclingBench(quiet);
    for (const engine of [results.libreOffice, results.chromium]) {
      expect(engine.kept.latencies).toHaveLength(8);
      expect(engine.recycled.latencies).toHaveLength(8);
      expect(engine.recycled.recycles).toBeGreaterThan(0);
    }
    expect(results.first.cold).toHaveLength(4);
    expect(results.first.warm.every((ms) => ms > 0)).toBe(true);
  }, 120_000);

  it('batched conversion: letters converted in one LibreOffice call read as they do alone, and cost less', async () => {
    const results = await runBatchedConversionBench(quiet);
    expect(results[1].libreOfficeCpuMs).toBeGreaterThan(0);
    expect(results[10].libreOfficeCpuMs).toBeGreaterThan(0);
  }, 180_000);

  it('end to end: documents reach ready through the whole service', async () => {
    const { results, inProcess } = await runEndToEndBench(quiet);
    expect(results['pdf@32']!.count).toBe(64);
    expect(results['docx@1']!.p50).toBeGreaterThan(0);
    expect(results['html@32']!.count).toBe(64);
    expect(results['logo-pdf@32']!.count).toBe(64);
    expect(results['logo-docx@32']!.count).toBe(64);
    expect(inProcess!.at32.count).toBe(32);
    expect(inProcess!.at32.libreOfficeCpuMs).toBeGreaterThan(0);
    expect(inProcess!.single.p50).toBeGreaterThan(0);
  }, 240_000);

  it('delivery sweep: the statement and its baselines all find the open deliveries, at each size, with and without a dead endpoint', async () => {
    const results = await runDeliverySweepBench(quiet);
    expect(Object.keys(results)).toHaveLength(2); // one endpoint up; and one down
    for (const byVolume of Object.values(results)) {
      expect(byVolume[2_000]!.dayScan.cpuMs).toBeGreaterThanOrEqual(0);
      expect(byVolume[2_000]!.unsettled.wallMs).toBeGreaterThan(0);
    }
  }, 120_000);

  it('fill: both forms of each template fill, for both outputs, and the letter as HTML beside its DOCX', async () => {
    const { docx, html } = await runFillBench(quiet);
    expect(Object.keys(docx)).toHaveLength(8);
    for (const { uploaded, stored } of Object.values(docx)) {
      expect(uploaded).toBeGreaterThan(0);
      expect(stored).toBeGreaterThan(0);
    }
    expect(html.html).toBeGreaterThan(0);
    expect(html.docx).toBeGreaterThan(0);
  }, 60_000);

  it('gateway: both servers accept the POST', async () => {
    const { baseline, gateway, steady } = await runGatewayBench(quiet);
    expect(baseline.accepted).toBeGreaterThan(0);
    expect(gateway.accepted).toBeGreaterThan(0);
    expect(gateway.other).toBe(0);
    // The steady-rate run: every request sent on its clock and accepted by both servers.
    expect(steady.map(([rate, onBare, onGateway]) => [rate, onBare.other, onGateway.other])).toEqual([[50, 0, 0]]);
  }, 120_000);

  it('--env reaches the services a bench starts: a cap of one document in progress refuses the rest', async () => {
    expect(serviceEnvFromArgv(['node', 'gateway.js', '--env=MAX_ACTIVE_PER_ORG=1', '--env=A=b=c', '--smoke'])).toEqual({ MAX_ACTIVE_PER_ORG: '1', A: 'b=c' });
    expect(() => serviceEnvFromArgv(['--env=NOVALUE'])).toThrow('--env takes NAME=value, got "NOVALUE"');
    const { gateway } = await runGatewayBench({ ...quiet, serviceEnv: { MAX_ACTIVE_PER_ORG: '1' } });
    expect(gateway.other).toBeGreaterThan(0); // 429s past the first document (the warm-up's); none without it (above)
  }, 120_000);

  it('memory: RSS is sampled before and after', async () => {
    const { after100, afterAll } = await runMemoryBench(quiet);
    expect(after100.children).toBeGreaterThan(0);
    expect(afterAll.worker).toBeGreaterThan(0);
  }, 240_000);

  it('bulk ZIP: both sizes are assembled', async () => {
    const { baseline, big } = await runBulkZipBench(quiet);
    expect(baseline.rows).toBe(10);
    expect(big.zipMiB).toBeGreaterThan(50 * 0.039);
  }, 60_000);

  it('expressions: the computed invoice and the 10,000-row sum run', async () => {
    const results = await runExpressionsBench(quiet);
    expect(results['invoice@20']!.measured).toBeGreaterThan(0);
    expect(results['sum@10000']!.baseline).toBeGreaterThan(0);
  }, 120_000);

  it('spreadsheet: the upload checks, against reading their parts twice', async () => {
    const results = await runSpreadsheetBench(quiet);
    expect(results['rows@200']!.measured).toBeGreaterThan(0);
    expect(results['rows@200']!.baseline).toBeGreaterThan(0);
  }, 60_000);

  it('preview: the live preview and the document it stands in for, both templates', async () => {
    const results = await runPreviewBench(quiet);
    expect(results.docx!.preview.count).toBe(3);
    expect(results.html!.document.p50).toBeGreaterThan(0);
  }, 240_000);
});
