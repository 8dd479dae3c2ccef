import {
  type CancelParams,
  CancelParamsSchema,
  type CancelResponse,
  checkPlaceOrderFields,
  DeadManArmRequestSchema,
  type DeadManStatus,
  decode,
  type ModifyRequest,
  ModifyRequestSchema,
  type ModifyResponse,
  type OrderRecord,
  type PlaceOrder,
  PlaceOrderSchema,
  type PlaceResponse,
} from '@venue/protocol';
import type { VenueClock } from '../chain/clock.ts';
import type { TradingRateLimiter } from '../rate-limit/trading-rate-limiter.ts';
import type { IntakeAction, VenueMetrics } from '../telemetry/venue-metrics.ts';
import type { ProofChecks, SignatureChecks } from './intake-checks.ts';
import { replyOf, type VenueEngine } from './venue-engine.ts';

/**
 * The order operations as both REST and the stream perform them (spec 4.8 rule 1: same intake and
 * verification). Each runs the same steps in the same order:
 *   1. decode the body strictly and check the rules that need no state (400s, free of charge);
 *   2. charge the account's trading rate limit (429 1401);
 *   3. verify signatures, then the proof (403 1102, 400 1033), off the sequencer;
 *   4. sequence the command: the core checks every stateful rule and the trading gates at that
 *      moment, atomically, so a pause that began during step 3 refuses it (spec 4.1 rule 8);
 *   5. wait for the command's journal record to be durable, then reply (nothing acknowledged is lost).
 * A refusal at any step throws a VenueError and nothing has changed.
 */
export interface IntakeDeps {
  readonly engine: VenueEngine;
  readonly limiter: TradingRateLimiter;
  readonly signatures: SignatureChecks;
  readonly proofs: ProofChecks;
  readonly clock: VenueClock;
  /** Counts each request's outcome (accepted, or refused with its code) for the operator. */
  readonly metrics?: VenueMetrics;
}

export class OrderIntake {
  readonly #deps: IntakeDeps;

  constructor(deps: IntakeDeps) {
    this.#deps = deps;
  }

  async place(body: unknown, accountId: string, connectionId: string | null): Promise<PlaceResponse> {
    return this.placeOrder(
      this.#decoded('place', () => decode(PlaceOrderSchema, body)),
      accountId,
      connectionId,
    );
  }

  /** A place whose body was already decoded by its schema (the stream decodes whole frames). */
  async placeOrder(
    order: PlaceOrder,
    accountId: string,
    connectionId: string | null,
  ): Promise<PlaceResponse> {
    return (await this.preparePlace(order, accountId, connectionId))();
  }

  /**
   * Steps 1-3 of a place; resolves to step 4, which the caller runs when it is the request's turn.
   * The stream verifies a connection's frames concurrently but sequences them in arrival order, so
   * a client's nonces never arrive out of order. The checks before the first await (field rules,
   * rate limit) run synchronously, in call order.
   */
  preparePlace(
    order: PlaceOrder,
    accountId: string,
    connectionId: string | null,
  ): Promise<() => Promise<PlaceResponse>> {
    return this.#counted('place', () => this.#preparePlace(order, accountId, connectionId));
  }

  async #preparePlace(
    order: PlaceOrder,
    accountId: string,
    connectionId: string | null,
  ): Promise<() => Promise<PlaceResponse>> {
    const { engine, limiter, signatures, proofs, clock } = this.#deps;
    checkPlaceOrderFields(order);
    limiter.charge(accountId, 'place', clock.nowMs());
    const bodyDigest = await signatures.place(order);
    await proofs.check(order);
    return async () => {
      const events = await engine.submit({
        type: 'place',
        order,
        bodyDigest,
        accountId,
        connectionId,
      });
      return replyOf(events, 'placed').response;
    };
  }

  async cancel(orderId: string, body: unknown, accountId: string): Promise<CancelResponse> {
    return this.cancelOrder(
      orderId,
      this.#decoded('cancel', () => decode(CancelParamsSchema, body)),
      accountId,
    );
  }

  async cancelOrder(orderId: string, params: CancelParams, accountId: string): Promise<CancelResponse> {
    return (await this.prepareCancel(orderId, params, accountId))();
  }

  prepareCancel(
    orderId: string,
    params: CancelParams,
    accountId: string,
  ): Promise<() => Promise<CancelResponse>> {
    return this.#counted('cancel', () => this.#prepareCancel(orderId, params, accountId));
  }

  async #prepareCancel(
    orderId: string,
    params: CancelParams,
    accountId: string,
  ): Promise<() => Promise<CancelResponse>> {
    const { engine, limiter, signatures, clock } = this.#deps;
    limiter.charge(accountId, 'cancel', clock.nowMs());
    await signatures.cancel(orderId, params);
    return async () =>
      replyOf(await engine.submit({ type: 'cancel', orderId, params, accountId }), 'cancelled_reply')
        .response;
  }

  async modify(
    oldOrderId: string,
    body: unknown,
    accountId: string,
    connectionId: string | null,
  ): Promise<ModifyResponse> {
    return this.modifyOrder(
      oldOrderId,
      this.#decoded('modify', () => decode(ModifyRequestSchema, body)),
      accountId,
      connectionId,
    );
  }

  async modifyOrder(
    oldOrderId: string,
    request: ModifyRequest,
    accountId: string,
    connectionId: string | null,
  ): Promise<ModifyResponse> {
    return (await this.prepareModify(oldOrderId, request, accountId, connectionId))();
  }

  prepareModify(
    oldOrderId: string,
    request: ModifyRequest,
    accountId: string,
    connectionId: string | null,
  ): Promise<() => Promise<ModifyResponse>> {
    return this.#counted('modify', () => this.#prepareModify(oldOrderId, request, accountId, connectionId));
  }

  async #prepareModify(
    oldOrderId: string,
    request: ModifyRequest,
    accountId: string,
    connectionId: string | null,
  ): Promise<() => Promise<ModifyResponse>> {
    const { engine, limiter, signatures, proofs, clock } = this.#deps;
    checkPlaceOrderFields(request.replacement, 'replacement.');
    limiter.charge(accountId, 'modify', clock.nowMs());
    const replacementDigest = await signatures.modify(oldOrderId, request);
    await proofs.check(request.replacement);
    return async () => {
      const events = await engine.submit({
        type: 'modify',
        oldOrderId,
        request,
        replacementDigest,
        accountId,
        connectionId,
      });
      return replyOf(events, 'modified').response;
    };
  }

  /**
   * The dead-man timer (POST and DELETE /account/dead-man, stream dead_man.arm/disarm). One unit of
   * the cancel reserve, so a bot at its trading limit can still refresh or disarm it: keeping it
   * alive is the kind of request that must not be starved. Sequenced like an order, so the journal
   * holds it and a replay arms it at the same slot.
   */
  async armDeadMan(body: unknown, accountId: string): Promise<DeadManStatus> {
    return this.setDeadMan(
      this.#decoded('dead_man', () => decode(DeadManArmRequestSchema, body)).timeout_slots,
      accountId,
    );
  }

  async setDeadMan(timeoutSlots: bigint | null, accountId: string): Promise<DeadManStatus> {
    const run = await this.#counted('dead_man', async () => {
      const { engine, limiter, clock } = this.#deps;
      limiter.charge(accountId, 'cancel', clock.nowMs());
      return async () =>
        replyOf(await engine.submit({ type: 'dead_man', accountId, timeoutSlots }), 'dead_man_reply')
          .response;
    });
    return run();
  }

  /** A body decoded by its schema; a body that fails is a refusal of `action` in the metrics. */
  #decoded<T>(action: IntakeAction, decodeBody: () => T): T {
    try {
      return decodeBody();
    } catch (error) {
      this.#deps.metrics?.intake(action, error);
      throw error;
    }
  }

  /**
   * A request's two steps (checks, then sequencing) with its outcome counted once: refused at
   * whichever step threw, accepted once the sequenced command replied.
   */
  async #counted<T>(
    action: IntakeAction,
    prepare: () => Promise<() => Promise<T>>,
  ): Promise<() => Promise<T>> {
    const metrics = this.#deps.metrics;
    if (metrics === undefined) return prepare();
    let run: () => Promise<T>;
    try {
      run = await prepare();
    } catch (error) {
      metrics.intake(action, error);
      throw error;
    }
    return async () => {
      try {
        const reply = await run();
        metrics.intake(action, null);
        return reply;
      } catch (error) {
        metrics.intake(action, error);
        throw error;
      }
    };
  }

  /** GET /account/dead-man: one read unit, like every read of the account. */
  async deadMan(accountId: string): Promise<DeadManStatus> {
    const { engine, limiter, clock } = this.#deps;
    limiter.charge(accountId, 'read', clock.nowMs());
    engine.catchUp();
    await engine.settled();
    return engine.core.deadMan(accountId);
  }

  /**
   * GET /orders/{id}: one unit of the trading limit, above the cancel reserve. Reads wait until what
   * was applied before them is durable, so a read never shows a state a crash could still take back.
   */
  async order(orderId: string, accountId: string): Promise<OrderRecord> {
    const { engine, limiter, clock } = this.#deps;
    limiter.charge(accountId, 'read', clock.nowMs());
    engine.catchUp();
    await engine.settled();
    return engine.core.orderRecord(orderId, accountId);
  }

  /** GET /account: one read unit like GET /orders/{id}, so neither read is free to flood. */
  async openOrders(accountId: string): Promise<OrderRecord[]> {
    const { engine, limiter, clock } = this.#deps;
    limiter.charge(accountId, 'read', clock.nowMs());
    engine.catchUp();
    await engine.settled();
    return engine.core.openOrders(accountId);
  }
}
