/**
 * The journal on NATS JetStream (issue 22) beside the file journal, in the same run: acknowledged
 * commands per second and the latency of one append (from the call to its acknowledgement, p50 and
 * p99) under APPENDERS concurrent appenders. JetStream: a three-node cluster of the machine's
 * nats-server on loopback, stream with 3 replicas, file storage, so an ack means two nodes stored
 * the record. Baseline: the file journal (group commit with fdatasync) on the same machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from '@venue/core';
import { startNatsCluster } from '@venue/testing';
import {
  FileJournal,
  JetStreamJournal,
  type Journal,
  openJetStreamLink,
  plainRecord,
  recoverJournal,
} from '../packages/adapters/src/journal/index.ts';
import { type Figure, figure, summarise } from './harness.ts';

interface TimedRun {
  readonly rate: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

async function timedAppends(
  journal: Journal,
  commands: readonly Command[],
  total: number,
  appenders: number,
): Promise<TimedRun> {
  const latencies = new Float64Array(total);
  let next = 0;
  const loop = async () => {
    while (next < total) {
      const i = next++;
      const start = process.hrtime.bigint();
      await journal.append(plainRecord(commands[i % commands.length] as Command));
      latencies[i] = Number(process.hrtime.bigint() - start) / 1e3;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: appenders }, loop));
  const rate = total / (Number(process.hrtime.bigint() - start) / 1e9);
  latencies.sort();
  return {
    rate,
    p50Us: latencies[Math.floor(total * 0.5)] ?? 0,
    p99Us: latencies[Math.floor(total * 0.99)] ?? 0,
  };
}

async function fileRun(key: Uint8Array, commands: readonly Command[], total: number, appenders: number) {
  const dir = await mkdtemp(join(tmpdir(), 'venue-bench-jsfile-'));
  try {
    const recovery = await recoverJournal({ directory: dir, sealingKey: key, onCommand: () => {} });
    const journal = await FileJournal.open({ directory: dir, sealingKey: key, recovery });
    const result = await timedAppends(journal, commands, total, appenders);
    await journal.close();
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function jetstreamFigures(
  quick: boolean,
  key: Uint8Array,
  commands: readonly Command[],
  appenders: number,
): Promise<Figure[]> {
  const total = quick ? 5_000 : 40_000;
  const runs = 3;
  const cluster = await startNatsCluster();
  let streams = 0;
  const jetstreamRun = async (count: number) => {
    streams += 1;
    const link = await openJetStreamLink({
      servers: cluster.servers,
      stream: `bench-${streams}`,
      replicas: 3,
    });
    const journal = new JetStreamJournal({
      link,
      sealingKey: key,
      position: { seq: 0n, hash: Buffer.alloc(32) },
    });
    const result = await timedAppends(journal, commands, count, appenders);
    await journal.close();
    return result;
  };
  try {
    process.stderr.write(
      `journal: JetStream (3 nodes, R3, loopback) against the file journal, ${total} commands a run, ${appenders} appenders\n`,
    );
    await jetstreamRun(total / 10); // warm-up
    const ours: TimedRun[] = [];
    const file: TimedRun[] = [];
    for (let run = 0; run < runs; run++) {
      ours.push(await jetstreamRun(total));
      file.push(await fileRun(key, commands, total, appenders));
      const [a, b] = [ours.at(-1) as TimedRun, file.at(-1) as TimedRun];
      process.stderr.write(
        `journal: jetstream ${a.rate.toFixed(0)}/s p50 ${a.p50Us.toFixed(0)} us p99 ${a.p99Us.toFixed(0)} us | file ${b.rate.toFixed(0)}/s p50 ${b.p50Us.toFixed(0)} us p99 ${b.p99Us.toFixed(0)} us\n`,
      );
    }
    const median = (list: TimedRun[], field: keyof TimedRun) => summarise(list.map((r) => r[field]));
    const baseline = (field: keyof TimedRun, what: string) => ({
      name: `file journal (group commit, fdatasync), ${what}`,
      value: Math.round(median(file, field).median),
    });
    const suffix = quick ? '_quick' : '';
    return [
      figure(
        'journal',
        `jetstream_acked_commands${suffix}`,
        'commands/s',
        'higher',
        median(ours, 'rate'),
        baseline('rate', 'acked commands/s'),
      ),
      figure(
        'journal',
        `jetstream_append_p50${suffix}`,
        'us',
        'lower',
        median(ours, 'p50Us'),
        baseline('p50Us', 'append p50'),
      ),
      figure(
        'journal',
        `jetstream_append_p99${suffix}`,
        'us',
        'lower',
        median(ours, 'p99Us'),
        baseline('p99Us', 'append p99'),
      ),
    ];
  } finally {
    await cluster.stop();
  }
}
