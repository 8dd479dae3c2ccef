import Type, { type Static, type TSchema } from 'typebox';
import { VenueError } from '../errors/venue-error.ts';
import { JsonNumberToken, printable } from '../json/json-text.ts';
import { BYTES } from '../limits.ts';
import { AccessToken, AccountId } from './auth.ts';
import { DeadManArmRequestSchema, DeadManStatusSchema } from './dead-man.ts';
import { decode } from './decode.ts';
import { CHANNELS, Seq } from './events.ts';
import {
  CancelParamsSchema,
  CancelResponseSchema,
  ModifyRequestSchema,
  ModifyResponseSchema,
  PlaceOrderSchema,
  PlaceResponseSchema,
} from './orders.ts';
import { Count, Hex, OneOf, RequestId, Strict, UnixMs } from './primitives.ts';

/**
 * Frames of the session stream `/v1/stream` (spec 4.8). Client frames and replies are tagged by
 * `op`; channel messages (events.ts) by `channel`. Each client frame has its own Strict schema, so
 * a dispatcher reads `op` first and then decodes the whole frame with the schema of that op.
 */

/** Largest frame, in bytes, the venue reads (an order.modify with two signatures is ~2.2 KiB). */
export const STREAM_FRAME_BYTES_MAX = 16 * 1024;

/** spec 4.8: the channel list of subscribe/unsubscribe: 1-3 distinct channels. */
function ChannelList(minItems: number) {
  return Type.Array(OneOf(CHANNELS, { errorCode: 'UNKNOWN_CHANNEL' }), {
    minItems,
    maxItems: CHANNELS.length,
    uniqueItems: true,
  });
}

const requestId = Type.Optional(RequestId({ description: 'Echoed on the reply.' }));

// ---- Client frames (spec 4.8 request frames) ----

export const LoginFrameSchema = Strict(
  {
    op: Type.Literal('login'),
    request_id: requestId,
    token: AccessToken(),
    cancel_on_disconnect: Type.Optional(
      Type.Boolean({ description: 'Overrides the account default (spec 4.8 rule 2) for this socket.' }),
    ),
  },
  { title: 'LoginFrame' },
);

export const SubscribeFrameSchema = Strict(
  { op: Type.Literal('subscribe'), request_id: requestId, channels: ChannelList(1) },
  { title: 'SubscribeFrame' },
);

export const UnsubscribeFrameSchema = Strict(
  { op: Type.Literal('unsubscribe'), request_id: requestId, channels: ChannelList(1) },
  { title: 'UnsubscribeFrame' },
);

export const OrderPlaceFrameSchema = Strict(
  { op: Type.Literal('order.place'), request_id: requestId, params: PlaceOrderSchema },
  { title: 'OrderPlaceFrame' },
);

export const OrderCancelFrameSchema = Strict(
  {
    op: Type.Literal('order.cancel'),
    request_id: requestId,
    order_id: Hex(BYTES.orderId),
    params: CancelParamsSchema,
  },
  { title: 'OrderCancelFrame' },
);

export const OrderModifyFrameSchema = Strict(
  {
    op: Type.Literal('order.modify'),
    request_id: requestId,
    order_id: Hex(BYTES.orderId, { description: 'The OLD order, as in the REST path.' }),
    params: ModifyRequestSchema,
  },
  { title: 'OrderModifyFrame' },
);

/** Ours: the account's dead-man timer over the stream, as POST and DELETE /account/dead-man. */
export const DeadManArmFrameSchema = Strict(
  { op: Type.Literal('dead_man.arm'), request_id: requestId, params: DeadManArmRequestSchema },
  { title: 'DeadManArmFrame' },
);

export const DeadManDisarmFrameSchema = Strict(
  { op: Type.Literal('dead_man.disarm'), request_id: requestId },
  { title: 'DeadManDisarmFrame' },
);

export const PingFrameSchema = Strict(
  { op: Type.Literal('ping'), request_id: requestId },
  { title: 'PingFrame' },
);

export const LogoutFrameSchema = Strict(
  { op: Type.Literal('logout'), request_id: requestId },
  { title: 'LogoutFrame' },
);

/** op -> schema of the whole frame. */
export const CLIENT_FRAMES = {
  login: LoginFrameSchema,
  subscribe: SubscribeFrameSchema,
  unsubscribe: UnsubscribeFrameSchema,
  'order.place': OrderPlaceFrameSchema,
  'order.cancel': OrderCancelFrameSchema,
  'order.modify': OrderModifyFrameSchema,
  'dead_man.arm': DeadManArmFrameSchema,
  'dead_man.disarm': DeadManDisarmFrameSchema,
  ping: PingFrameSchema,
  logout: LogoutFrameSchema,
} as const;

export type ClientOp = keyof typeof CLIENT_FRAMES;
export const CLIENT_OPS = Object.keys(CLIENT_FRAMES) as ClientOp[];
export type ClientFrame = { [K in ClientOp]: Static<(typeof CLIENT_FRAMES)[K]> }[ClientOp];

/**
 * Decodes one parsed client frame: `op` first (UNKNOWN_OP for an op the stream lacks), then the
 * whole frame against that op's schema. Unknown fields are refused as everywhere else.
 */
export function decodeClientFrame(value: unknown): ClientFrame {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof JsonNumberToken
  ) {
    throw new VenueError('WRONG_TYPE', 'a frame must be a JSON object with an `op` field');
  }
  const op = (value as Record<string, unknown>)['op'];
  if (op === undefined) throw new VenueError('MISSING_FIELD', 'field `op`: is required');
  if (typeof op !== 'string') throw new VenueError('WRONG_TYPE', 'field `op`: expected a string');
  if (!Object.hasOwn(CLIENT_FRAMES, op)) {
    throw new VenueError(
      'UNKNOWN_OP',
      `field \`op\`: "${printable(op)}" is not one of ${CLIENT_OPS.join(', ')}`,
    );
  }
  return decode(CLIENT_FRAMES[op as ClientOp] as TSchema, value) as ClientFrame;
}

// ---- Server frames (spec 4.8 reply frames). Every one carries `seq`; replies echo request_id. ----

function Reply<const Op extends string, R extends TSchema>(op: Op, result: R, title: string) {
  return Strict({ op: Type.Literal(op), seq: Seq(), request_id: requestId, result }, { title });
}

export const OrderPlaceReplySchema = Reply('order.place', PlaceResponseSchema, 'OrderPlaceReply');
export const OrderCancelReplySchema = Reply('order.cancel', CancelResponseSchema, 'OrderCancelReply');
export const OrderModifyReplySchema = Reply('order.modify', ModifyResponseSchema, 'OrderModifyReply');
export const DeadManArmReplySchema = Reply('dead_man.arm', DeadManStatusSchema, 'DeadManArmReply');
export const DeadManDisarmReplySchema = Reply('dead_man.disarm', DeadManStatusSchema, 'DeadManDisarmReply');

/** Result of login: who the session is, until when, and the effective disconnect policy. */
export const LoginResultSchema = Strict(
  {
    account_id: AccountId(),
    expires_at: UnixMs({ description: 'Exact token expiry; log in again before it.' }),
    cancel_on_disconnect: Type.Boolean({
      description: 'Effective value: the one in the login frame, else the account default.',
    }),
  },
  { title: 'LoginResult' },
);
export const LoginReplySchema = Reply('login', LoginResultSchema, 'LoginReply');

/** Result of subscribe and unsubscribe: every channel active after the change (possibly none). */
export const ChannelsResultSchema = Strict({ channels: ChannelList(0) }, { title: 'ChannelsResult' });
export const SubscribeReplySchema = Reply('subscribe', ChannelsResultSchema, 'SubscribeReply');
export const UnsubscribeReplySchema = Reply('unsubscribe', ChannelsResultSchema, 'UnsubscribeReply');

/** Result of logout: empty. The server then closes the socket with code 1000. */
export const LogoutResultSchema = Strict({}, { title: 'LogoutResult' });
export const LogoutReplySchema = Reply('logout', LogoutResultSchema, 'LogoutReply');

export const PongFrameSchema = Strict(
  { op: Type.Literal('pong'), seq: Seq(), request_id: requestId },
  { title: 'PongFrame' },
);

/** Sent shortly before the session token expires (spec 4.8); answer with a new login frame. */
export const AuthExpiredFrameSchema = Strict(
  {
    op: Type.Literal('auth_expired'),
    seq: Seq(),
    expires_at: UnixMs({ description: 'Exact expiry of the current token.' }),
  },
  { title: 'AuthExpiredFrame' },
);

/** Longest error message the venue writes (REST envelope and stream alike). */
export const ERROR_MESSAGE_LENGTH_MAX = 1024;

/** spec 4.8 / spec 7: a failed frame, with the numeric code and the message REST would give. */
export const ErrorFrameSchema = Strict(
  {
    op: Type.Literal('error'),
    seq: Seq(),
    request_id: requestId,
    code: Count(9999, { description: 'Catalogue code (spec 7).' }),
    message: Type.String({ minLength: 1, maxLength: ERROR_MESSAGE_LENGTH_MAX }),
  },
  { title: 'ErrorFrame' },
);

/** op -> schema of every frame the server sends with an `op`. */
export const SERVER_FRAMES = {
  login: LoginReplySchema,
  subscribe: SubscribeReplySchema,
  unsubscribe: UnsubscribeReplySchema,
  'order.place': OrderPlaceReplySchema,
  'order.cancel': OrderCancelReplySchema,
  'order.modify': OrderModifyReplySchema,
  'dead_man.arm': DeadManArmReplySchema,
  'dead_man.disarm': DeadManDisarmReplySchema,
  pong: PongFrameSchema,
  logout: LogoutReplySchema,
  auth_expired: AuthExpiredFrameSchema,
  error: ErrorFrameSchema,
} as const;

export type ServerOp = keyof typeof SERVER_FRAMES;
export type ServerFrame = { [K in ServerOp]: Static<(typeof SERVER_FRAMES)[K]> }[ServerOp];

/** The success reply of each client op (ping is answered by pong). */
export const REPLY_OF = {
  login: 'login',
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  'order.place': 'order.place',
  'order.cancel': 'order.cancel',
  'order.modify': 'order.modify',
  'dead_man.arm': 'dead_man.arm',
  'dead_man.disarm': 'dead_man.disarm',
  ping: 'pong',
  logout: 'logout',
} as const satisfies Record<ClientOp, ServerOp>;
