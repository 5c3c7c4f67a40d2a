/**
 * The dashboard with 10,000 jobs and 1,000,000 executions (seeded by SQL): the first load's
 * JavaScript and CSS after gzip, and how long the Jobs, Job and Execution pages take from
 * navigation to their content in Chromium (the one inside @sparticuz/chromium), p95 over 20
 * loads each, and the same for the Overview and the Workers page; beside them the API reads those pages and the Overview (and its pictures) make.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Locator, type Page } from 'playwright-core';
import { Bench, clearExecutions, deleteJobs, distribution, freePort, log, ms, startOrbit, verdict } from './support.js';

const PREFIX = 'bench-ui-';
const LOADS = 20;
const P95_TARGET_MS = 1000;
const FIRST_LOAD_BUDGET = 200 * 1024;
const SEED_CHUNK = 250_000;
/** The worker every seeded run names. */
const SEED_WORKER = 'bench-seed:1:000000';
/** As test/dashboard/browser.ts: flags of the package's serverless defaults that would weaken the browser. */
const LEFT_OUT = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

interface PageKind {
  key: string;
  label: string;
  paths: string[];
  /** What must be on screen for the page to have shown its content. */
  content: (page: Page) => Locator[];
}

export async function runDashboard(bench: Bench): Promise<void> {
  const { db } = bench;
  const adminToken = `bench-admin-${randomBytes(18).toString('hex')}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await clearExecutions(db);
  try {
    const { jobIds, executionIds, retried } = await seed(bench);
    const api = await startOrbit(bench, 'api', 'dashboard-api', {
      PORT: String(port),
      HOST: '127.0.0.1',
      ORBIT_ADMIN_TOKEN: adminToken,
      ORBIT_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    try {
      await firstLoad(bench, base);
      await apiReads(bench, base, adminToken, jobIds);
      const pick = (ids: string[], i: number) => ids[Math.floor((i * ids.length) / LOADS)]!;
      const kinds: PageKind[] = [
        {
          key: 'overview',
          label: 'Overview (cards, problems, the activity pictures, failures, due)',
          paths: Array.from({ length: LOADS }, () => '/ui/'),
          content: (page) => [
            page.locator('.runs-chart svg'),
            page.locator('.levels-chart svg'),
            page.locator('section[aria-labelledby="recent-failures"] table'),
          ],
        },
        {
          key: 'workers',
          label: "Workers (the table, each worker's lane of the last hour)",
          paths: Array.from({ length: LOADS }, () => '/ui/workers'),
          content: (page) => [page.getByRole('list', { name: 'Runs per worker' })],
        },
        {
          key: 'jobs',
          label: 'Jobs (first page, failing filter, a name search, enabled filter, in turn)',
          paths: Array.from(
            { length: LOADS },
            (_, i) =>
              [
                '/ui/jobs',
                '/ui/jobs?failing=true',
                `/ui/jobs?name=${PREFIX}${String(i + 1)
                  .padStart(5, '0')
                  .slice(0, 4)}`,
                '/ui/jobs?enabled=true',
              ][i % 4]!,
          ),
          // the rows; each row's recent-runs bars come from a second read, after the rows
          content: (page) => [page.locator('main table tbody tr a').first()],
        },
        {
          key: 'job',
          label: `Job (${LOADS} jobs of 100 runs each: definition, durations, chart, history)`,
          paths: Array.from({ length: LOADS }, (_, i) => `/ui/jobs/${pick(jobIds, i)}`),
          content: (page) => [
            page.getByRole('heading', { name: 'History' }),
            page.locator('section[aria-labelledby="history"] table'),
            page.getByRole('list', { name: 'The last 24 hours' }),
            page.locator('.duration-chart canvas').first(),
          ],
        },
        {
          key: 'execution',
          label: `Execution (${LOADS} runs, some with a next attempt: fields, attempts, output)`,
          paths: Array.from(
            { length: LOADS },
            (_, i) => `/ui/executions/${i % 4 === 0 ? retried[i / 4]! : pick(executionIds, i)}`,
          ),
          content: (page) => [page.locator('dl.fields'), page.getByRole('region', { name: 'Output' })],
        },
      ];
      const browser = await playwright.launch({
        executablePath: await chromium.executablePath(),
        args: chromium.args.filter((arg) => !LEFT_OUT.has(arg)),
        headless: true,
      });
      try {
        // a locale of its own: the shell's (LANG=C gives Chromium 'en-US@posix') is no language
        // tag, and uPlot's number format refuses it
        const context = await browser.newContext({ baseURL: base, locale: 'en-GB', timezoneId: 'UTC' });
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        page.on('pageerror', (error) => log(`dashboard: page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error') log(`dashboard: console: ${message.text()}`);
        });
        await page.goto('/ui/');
        await page.getByLabel('Token').fill(adminToken);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
        const figures: Record<string, unknown> = {};
        for (const kind of kinds) {
          // one load first, as a user's browser would have the assets cached after the sign-in
          await show(page, kind.paths[0]!, kind.content(page));
          const times: number[] = [];
          for (const path of kind.paths) {
            const took = await show(page, path, kind.content(page));
            if (took > P95_TARGET_MS) log(`dashboard: ${path} took ${ms(took)}`);
            times.push(took);
          }
          const d = distribution(times);
          figures[kind.key] = d;
          log(`dashboard: ${kind.key}: p50 ${ms(d.p50)}, p95 ${ms(d.p95)}, max ${ms(d.max)}`);
          bench.report.add({
            scenario: 'dashboard',
            measure: `${kind.label}: navigation → content, ${LOADS} loads`,
            figure: `p50 ${ms(d.p50)}, p95 ${ms(d.p95)}, max ${ms(d.max)}`,
            target: `p95 ≤ ${P95_TARGET_MS} ms`,
            verdict: verdict(d.p95 <= P95_TARGET_MS),
          });
        }
        bench.report.figure('dashboardPages', figures);
      } finally {
        await browser.close();
      }
    } finally {
      await api.stop();
    }
  } finally {
    await clearExecutions(db);
    await deleteJobs(db, PREFIX);
    await db.query(`DELETE FROM workers WHERE id = $1`, [SEED_WORKER]);
    await db.query(`DELETE FROM job_outcomes o WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = o.job_id)`);
  }
}

/** A full navigation (the page's scripts run anew, the token from sessionStorage) until every locator shows. */
async function show(page: Page, path: string, content: Locator[]): Promise<number> {
  const began = performance.now();
  await page.goto(path, { waitUntil: 'commit' });
  try {
    for (const locator of content) await locator.waitFor();
  } catch (error) {
    const shown = ((await page.locator('main').textContent()) ?? '').slice(0, 2000);
    throw new Error(`${path} did not show its content; it shows: ${shown}`, { cause: error });
  }
  return performance.now() - began;
}

/** What the browser loads before it can show anything: index.html's scripts and styles, after gzip. */
async function firstLoad(bench: Bench, base: string): Promise<void> {
  const html = await (await fetch(`${base}/ui/`)).text();
  const assets = [...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  let gzipped = 0;
  for (const asset of assets) gzipped += gzipSync(Buffer.from(await (await fetch(base + asset)).arrayBuffer())).length;
  log(`dashboard: first load ${assets.join(', ')}: ${(gzipped / 1024).toFixed(1)} KB after gzip`);
  bench.report.add({
    scenario: 'dashboard',
    measure: `first load of /ui/: JavaScript and CSS after gzip (${assets.length} files; the chart's chunk comes later)`,
    figure: `${(gzipped / 1024).toFixed(1)} KB`,
    target: `≤ ${FIRST_LOAD_BUDGET / 1024} KB`,
    verdict: verdict(gzipped <= FIRST_LOAD_BUDGET),
  });
  bench.report.figure('dashboardFirstLoad', { assets, gzippedBytes: gzipped });
}

/** The API reads behind the pages, alone: 20 of each, one at a time. */
async function apiReads(bench: Bench, base: string, token: string, jobIds: string[]): Promise<void> {
  const page = jobIds.slice(0, 20).join(',');
  const reads: Array<[string, string]> = [
    ['GET /jobs?limit=20', '/jobs?limit=20'],
    ['GET /jobs?failing=true&limit=20', '/jobs?failing=true&limit=20'],
    ['GET /jobs/recent-runs (20 jobs × 20 runs)', `/jobs/recent-runs?ids=${page}&count=20`],
    ['GET /jobs/recent-runs (1 job × 100 runs)', `/jobs/recent-runs?ids=${jobIds[0]}&count=100`],
    ['GET /jobs/:id/stats', `/jobs/${jobIds[0]}/stats`],
    ['GET /overview', '/overview'],
    ['GET /overview/activity?window=hour', '/overview/activity?window=hour'],
    ['GET /overview/activity?window=day', '/overview/activity?window=day'],
  ];
  const figures: Record<string, unknown> = {};
  for (const [label, path] of reads) {
    const times: number[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const began = performance.now();
      const res = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${path} answered ${res.status}`);
      if (i > 0) times.push(performance.now() - began);
    }
    const d = distribution(times);
    figures[label] = d;
    bench.report.add({
      scenario: 'dashboard',
      measure: `${label}, one at a time, ${LOADS} requests`,
      figure: `p50 ${ms(d.p50)}, p95 ${ms(d.p95)}`,
      target: 'reported',
      verdict: 'info',
    });
  }
  bench.report.figure('dashboardApiReads', figures);
}

/**
 * 10,000 jobs and 1,000,000 finished executions spread over them (100 each, one every 2.5 s
 * going back a month, 1 in 13 failed), and a retry for a few, by SQL; job_outcomes as the
 * database's trigger would have left it.
 */
async function seed(bench: Bench): Promise<{ jobIds: string[]; executionIds: string[]; retried: string[] }> {
  const { db } = bench;
  const { dashboardJobs: jobs, dashboardRows: total } = bench.settings;
  const began = Date.now();
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, next_run_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1 || lpad(g::text, 5, '0'), 'true', (g % 60) || ' * * * *', 'UTC', 1, 60, g % 10 <> 0,
            'RUN_ONCE', 'ALLOW', CASE WHEN g % 10 <> 0 THEN now() + (g % 60) * interval '1 minute' END,
            now() - interval '60 days' + g * interval '1 second', now() - interval '60 days'
       FROM generate_series(1, $2) AS g
     RETURNING id`,
    [PREFIX, jobs],
  );
  const jobIds = rows.map((r) => r.id);
  const newest = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  await db.query(`SET session_replication_role = replica`);
  try {
    for (let from = 1; from <= total; from += SEED_CHUNK) {
      const to = Math.min(total, from + SEED_CHUNK - 1);
      await db.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
           scheduled_for, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, version)
         SELECT gen_random_uuid(), ($1::uuid[])[1 + g % cardinality($1::uuid[])], 'true', 1, 60,
                CASE WHEN g % 13 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END, 1, 'SCHEDULE', s.slot, s.slot,
                s.slot, s.slot + interval '3 ms', s.slot + interval '20 ms' + (g % 997) * interval '3 ms',
                CASE WHEN g % 13 = 0 THEN 1 ELSE 0 END, CASE WHEN g % 13 = 0 THEN 'exit code 1' END,
                $5, 3
           FROM generate_series($2::int, $3::int) AS g,
                LATERAL (SELECT $4::timestamptz - g * interval '2500 ms' AS slot) AS s`,
        [jobIds, from, to, newest, SEED_WORKER],
      );
      log(`dashboard: seeded ${to} of ${total} executions (${((Date.now() - began) / 1000).toFixed(1)} s)`);
    }
    // a second attempt for a few failed runs, so that Execution pages link to a next attempt
    await db.query(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
         due_at, created_at, started_at, finished_at, exit_code, retry_of, worker_id, version)
       SELECT gen_random_uuid(), e.job_id, e.command, 1, 60, 'SUCCEEDED', 2, 'RETRY', e.finished_at,
              e.finished_at, e.finished_at, e.finished_at + interval '40 ms', 0, e.id, e.worker_id, 3
         FROM executions e WHERE e.status = 'FAILED' ORDER BY e.created_at DESC LIMIT 5`,
    );
    await db.query(
      `INSERT INTO job_outcomes (job_id, last_status, last_finished_at, failures_in_row)
       SELECT DISTINCT ON (job_id) job_id, status, finished_at, CASE WHEN status = 'FAILED' THEN 1 ELSE 0 END
         FROM executions ORDER BY job_id, finished_at DESC
       ON CONFLICT (job_id) DO NOTHING`,
    );
  } finally {
    await db.query(`RESET session_replication_role`);
  }
  // the worker that ran them, live, so that the Workers page draws its lane (a run every 2.5 s)
  await db.query(
    `INSERT INTO workers (id, host, pid, version, concurrency, started_at, last_heartbeat_at, load_average, cpus)
     VALUES ($1, 'bench', 1, '0.0.0', 8, now() - interval '60 days', now() + interval '1 hour', 0.5, 2)
     ON CONFLICT (id) DO UPDATE SET last_heartbeat_at = EXCLUDED.last_heartbeat_at, stopped_at = NULL`,
    [SEED_WORKER],
  );
  log('dashboard: VACUUM (ANALYZE)');
  await db.query('VACUUM (ANALYZE) executions');
  await db.query('VACUUM (ANALYZE) jobs');
  await db.query('VACUUM (ANALYZE) job_outcomes');
  const executionIds = (
    await db.query<{ id: string }>(`SELECT id FROM executions TABLESAMPLE SYSTEM (0.1) LIMIT ${LOADS}`)
  ).rows.map((r) => r.id);
  const retried = (
    await db.query<{ id: string }>(`SELECT retry_of AS id FROM executions WHERE retry_of IS NOT NULL`)
  ).rows.map((r) => r.id);
  bench.report.figure('dashboardSeed', { jobs, executions: total, seconds: (Date.now() - began) / 1000 });
  log(`dashboard: seeded ${jobs} jobs and ${total} executions in ${((Date.now() - began) / 1000).toFixed(0)} s`);
  return { jobIds, executionIds, retried };
}
