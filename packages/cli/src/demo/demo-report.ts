import type { Balance } from '@venue/sdk';
import { tableClass } from '../commands/lazy.ts';

/**
 * What `venue demo` found, per trader: what it deposited, the orders it placed, every event and
 * decrypted fill memo its stream delivered, and its balances as its own wallet computes them from
 * the public note trees. `--json` prints this document; the human form is a few tables.
 */

export interface DemoNoteRef {
  readonly mint: string;
  readonly amount: bigint;
  readonly commitment: string;
}

export interface DemoDeposit {
  readonly mint: string;
  readonly value: bigint;
  readonly commitment: string;
  readonly leaf_index: bigint;
}

export interface DemoOrder {
  readonly order_id: string;
  readonly symbol: string;
  readonly side: 'bid' | 'ask';
  readonly amount: bigint;
  readonly price_limit: bigint;
  /** Value of the note backing it, when more than the order costs (the rest comes back as change). */
  readonly collateral_amount?: bigint;
  readonly state: string;
  readonly filled_quantity: bigint;
}

/** One orders-channel event as the trader's stream delivered it. */
export interface DemoEvent {
  readonly order_id: string;
  readonly symbol: string;
  readonly kind: string;
  readonly match_id?: bigint;
  readonly filled_quantity?: bigint;
  readonly new_amount?: bigint;
  readonly new_note_amount?: bigint;
  readonly reason?: string;
  readonly lock_expiry_slot?: bigint;
}

/** One fill memo, decrypted with the trader's viewing key. */
export interface DemoFill {
  readonly order_id: string;
  readonly symbol: string;
  readonly side: 'bid' | 'ask';
  readonly match_id: bigint;
  readonly batch_seq: bigint;
  readonly fill_quantity: bigint;
  readonly quote_amount: bigint;
  readonly clearing_price: bigint;
  /** What the fill took from the order's note: quote for a bid, base for an ask. */
  readonly paid: { readonly mint: string; readonly amount: bigint };
  readonly received: DemoNoteRef;
  readonly change?: DemoNoteRef;
}

/** A note the wallet holds at the end, as it found it in the tree. */
export interface DemoNote {
  readonly commitment: string;
  readonly mint: string;
  readonly value: bigint;
  readonly status: string;
  readonly tree_id: number;
  readonly leaf_index?: bigint;
}

export interface DemoHolding {
  readonly mint: string;
  readonly amount: bigint;
}

export interface DemoTraderReport {
  readonly name: string;
  readonly cancel_on_disconnect: boolean;
  readonly deposits: readonly DemoDeposit[];
  readonly orders: readonly DemoOrder[];
  readonly events: readonly DemoEvent[];
  readonly fills: readonly DemoFill[];
  readonly balances: readonly Balance[];
  readonly notes: readonly DemoNote[];
  /** Deposits, minus what each fill paid, plus what it received: what the balances must be. */
  readonly expected: readonly DemoHolding[];
  readonly balances_match: boolean;
}

export interface DemoReport {
  readonly rest_url: string;
  readonly session_id: string;
  readonly measurement: string;
  /** Token name by mint, from the instruments' symbols (SOL-USDC: base SOL, quote USDC). */
  readonly tokens: Readonly<Record<string, string>>;
  readonly traders: readonly DemoTraderReport[];
}

/** Per mint: every deposit, less what each fill paid, plus what it received. Zero sums are left out. */
export function expectedHoldings(
  deposits: readonly Pick<DemoDeposit, 'mint' | 'value'>[],
  fills: readonly Pick<DemoFill, 'paid' | 'received'>[],
): DemoHolding[] {
  const sums = new Map<string, bigint>();
  const add = (mint: string, amount: bigint) => sums.set(mint, (sums.get(mint) ?? 0n) + amount);
  for (const deposit of deposits) add(deposit.mint, deposit.value);
  for (const fill of fills) {
    add(fill.paid.mint, -fill.paid.amount);
    add(fill.received.mint, fill.received.amount);
  }
  return [...sums]
    .filter(([, amount]) => amount !== 0n)
    .map(([mint, amount]) => ({ mint, amount }))
    .sort((a, b) => a.mint.localeCompare(b.mint));
}

/** Whether the wallet's balances (every unspent note, whatever its status) equal `expected`. */
export function balancesMatch(balances: readonly Balance[], expected: readonly DemoHolding[]): boolean {
  const held = new Map<string, bigint>();
  for (const b of balances) {
    const total = b.spendable + b.reserved + b.pending;
    if (total !== 0n) held.set(b.mint, total);
  }
  return held.size === expected.length && expected.every((e) => held.get(e.mint) === e.amount);
}

export function formatReport(report: DemoReport): string {
  const token = (mint: string) => report.tokens[mint] ?? `${mint.slice(0, 8)}…`;
  const lines: string[] = ['', `venue ${report.rest_url}, session ${report.session_id.slice(0, 16)}…`];
  for (const trader of report.traders) {
    lines.push(
      '',
      `== ${trader.name}${trader.cancel_on_disconnect ? ' (stream with cancel on disconnect)' : ''}`,
    );
    lines.push(
      `deposited: ${trader.deposits.map((d) => `${d.value} ${token(d.mint)} (leaf ${d.leaf_index})`).join(', ')}`,
    );
    lines.push(
      'orders:',
      table(
        ['order', 'market', 'side', 'amount', 'limit', 'note value', 'filled', 'state'],
        trader.orders.map((o) => [
          short(o.order_id),
          o.symbol,
          o.side,
          String(o.amount),
          String(o.price_limit),
          o.collateral_amount === undefined ? 'exact' : String(o.collateral_amount),
          String(o.filled_quantity),
          o.state,
        ]),
      ),
    );
    lines.push(
      'orders channel, as delivered:',
      table(
        ['order', 'market', 'event', 'filled', 'open', 'change note'],
        trader.events.map((e) => [
          short(e.order_id),
          e.symbol,
          e.kind,
          e.filled_quantity === undefined ? '' : String(e.filled_quantity),
          e.new_amount === undefined ? '' : String(e.new_amount),
          e.new_note_amount === undefined ? '' : String(e.new_note_amount),
        ]),
      ),
    );
    lines.push(
      'fills channel, memos decrypted with the viewing key:',
      table(
        ['order', 'market', 'match', 'price', 'paid', 'received', 'change'],
        trader.fills.map((f) => [
          short(f.order_id),
          f.symbol,
          String(f.match_id),
          String(f.clearing_price),
          `${f.paid.amount} ${token(f.paid.mint)}`,
          `${f.received.amount} ${token(f.received.mint)}`,
          f.change === undefined ? '-' : `${f.change.amount} ${token(f.change.mint)}`,
        ]),
      ),
    );
    const expected = new Map(trader.expected.map((e) => [e.mint, e.amount]));
    const mints = [...new Set([...trader.balances.map((b) => b.mint), ...expected.keys()])].sort();
    lines.push(
      'balances (the wallet, from the public trees):',
      table(
        ['token', 'spendable', 'reserved', 'pending', 'deposits ± fills'],
        mints.map((mint) => {
          const b = trader.balances.find((x) => x.mint === mint);
          return [
            token(mint),
            String(b?.spendable ?? 0n),
            String(b?.reserved ?? 0n),
            String(b?.pending ?? 0n),
            String(expected.get(mint) ?? 0n),
          ];
        }),
      ),
    );
    lines.push(trader.balances_match ? 'balances match the fills' : 'BALANCES DO NOT MATCH THE FILLS');
  }
  return `${lines.join('\n')}\n`;
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '  (none)';
  const t = new (tableClass())({ head, style: { head: [], border: [] } });
  for (const row of rows) t.push(row);
  return t.toString();
}

function short(id: string): string {
  return `${id.slice(0, 8)}…`;
}
