import type { Collateral, TcbStatus } from '@phala/dcap-qvl';
import {
  INTEL_SGX_ROOT_CA_PEM as INTEL_ROOT_PEM,
  INTEL_SGX_ROOT_CA_SHA256 as INTEL_ROOT_SHA256,
} from '@venue/protocol';

/** Intel's SGX Root CA (PEM): the default root of TdxTrust, pinned in the protocol package. */
export const INTEL_SGX_ROOT_CA_PEM: string = INTEL_ROOT_PEM;
/** sha256 of its DER, the fingerprint Intel publishes, to compare with Intel's own page. */
export const INTEL_SGX_ROOT_CA_SHA256: string = INTEL_ROOT_SHA256;

/**
 * What a client pins to accept an Intel TDX venue (docs/enclave.md section 9), configured by the
 * operator of the bot and never learned from the venue.
 */
export interface TdxTrust {
  /** The TD builds the bot accepts: MRTD and RTMR0 to RTMR3 of each, as published with a release. */
  readonly measurements: readonly TdxMeasurement[];
  /** Where the DCAP collateral comes from: a PCCS (or Intel's PCS) by URL, or supplied offline. */
  readonly collateral: TdxCollateralSource;
  /** TCB statuses accepted; default only `UpToDate`. `Revoked` is refused whatever this says. */
  readonly acceptedTcbStatuses?: ReadonlySet<TcbStatus>;
  /** PEM of the root every chain must end at; default Intel's SGX Root CA (intel-root.ts). */
  readonly rootCertificatePem?: string;
  /** The verification time, Unix ms; default the clock. Fixed in tests and for audits of old quotes. */
  readonly nowMs?: () => number;
}

/** One accepted TD build: 48-byte registers, 96 lowercase hex characters each. */
export interface TdxMeasurement {
  readonly mrtd: string;
  readonly rtmr0: string;
  readonly rtmr1: string;
  readonly rtmr2: string;
  readonly rtmr3: string;
}

/**
 * `url`: the base URL of a PCCS (for example `https://pccs.example.net/sgx/certification/v4/`) or of
 * Intel's PCS; the quote names its FMSPC and CA, which select the collateral. `offline`: collateral
 * fetched earlier (or by another tool) in the PCCS JSON shape, for machines that cannot reach one.
 */
export type TdxCollateralSource = { readonly url: string } | { readonly offline: Collateral };

export const TDX_TCB_STATUSES_DEFAULT: ReadonlySet<TcbStatus> = new Set(['UpToDate']);

const HEX96 = /^[0-9a-f]{96}$/;
const REGISTERS = ['mrtd', 'rtmr0', 'rtmr1', 'rtmr2', 'rtmr3'] as const;

/** Refuses a TDX trust that could never accept anything, so a typo does not look like an attack. */
export function checkTdxTrust(trust: TdxTrust): void {
  if (trust.measurements.length === 0) {
    throw new TypeError('trust.tdx.measurements is empty: add the MRTD and RTMRs of the builds you accept');
  }
  for (const [index, entry] of trust.measurements.entries()) {
    for (const register of REGISTERS) {
      if (!HEX96.test(entry[register])) {
        throw new TypeError(
          `trust.tdx.measurements[${index}].${register} must be 96 lowercase hex characters`,
        );
      }
    }
  }
  const source = trust.collateral as { url?: unknown; offline?: unknown };
  if (typeof source.url === 'string') {
    const url = new URL(source.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError('trust.tdx.collateral.url must be an http(s) URL of a PCCS');
    }
  } else if (typeof source.offline !== 'object' || source.offline === null) {
    throw new TypeError('trust.tdx.collateral needs a url (a PCCS) or offline collateral');
  }
  if (trust.acceptedTcbStatuses?.has('Revoked') === true) {
    throw new TypeError('trust.tdx.acceptedTcbStatuses: a Revoked platform is never accepted');
  }
}

export function sameMeasurement(a: TdxMeasurement, b: TdxMeasurement): boolean {
  return REGISTERS.every((register) => a[register] === b[register]);
}
