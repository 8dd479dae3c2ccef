import type { AttestationFailure } from '../errors.ts';

/**
 * The DCAP library (@phala/dcap-qvl, pinned to one version) refuses with a plain Error whose message
 * names the check. These prefixes turn each message it can raise into the SDK's reason, so a bot
 * branches on `failure` rather than on wording. `tdx-refusals.test.ts` reads the library's source
 * and fails when a version bump adds a message this table does not know.
 */
export const DCAP_REFUSALS: readonly (readonly [prefix: string, failure: AttestationFailure])[] = [
  ['Failed to decode quote', 'malformed_quote'],
  ['Unsupported DCAP quote version', 'malformed_quote'],
  ['Unsupported DCAP TEE type', 'malformed_quote'],
  ['SGX TEE quote must have version 3', 'malformed_quote'],
  ['TDX TEE quote must have version 4 or 5', 'malformed_quote'],
  ['Unsupported DCAP attestation key type', 'malformed_quote'],
  ['Unsupported DCAP PCK cert format', 'malformed_quote'],
  ['Failed to extract PCK certificates', 'malformed_quote'],
  ['Failed to get TD10 report', 'malformed_quote'],
  // The PCK certificate travels in the quote: an Intel extension it lacks is the quote's fault.
  ['Intel extension not found', 'malformed_quote'],
  ['Intel extension ambiguity', 'malformed_quote'],
  ['OID ', 'malformed_quote'],
  ['Fmspc length mismatch', 'malformed_quote'],
  ['CpuSvn length mismatch', 'malformed_quote'],
  ['PceSvn length mismatch', 'malformed_quote'],
  // The quote's signatures are fixed-size fields; only a collateral signature can have another length.
  ['Key length is invalid', 'malformed_collateral'],
  ['Failed to decode TcbInfo', 'malformed_collateral'],
  ['Failed to decode QeIdentity', 'malformed_collateral'],
  ['No SGX components in the TCB info', 'malformed_collateral'],
  ['No TDX components in the TCB info', 'malformed_collateral'],
  ['No TCB levels found in QE Identity', 'malformed_collateral'],
  ['Fmspc mismatch', 'collateral_mismatch'],
  ['TDX quote with non-TDX TCB info', 'collateral_mismatch'],
  ['SGX quote with non-SGX TCB info', 'collateral_mismatch'],
  ['Unsupported QE Identity id/version', 'collateral_mismatch'],
  ['TCBInfo issue date is in the future', 'collateral_expired'],
  ['TCBInfo expired', 'collateral_expired'],
  ['QE Identity issue date is in the future', 'collateral_expired'],
  ['QE Identity expired', 'collateral_expired'],
  ['Signature is invalid for tcb_info', 'collateral_signature'],
  ['Signature is invalid for qe_identity', 'collateral_signature'],
  ['Signature verification failed', 'collateral_signature'],
  ['Certificate chain is too short', 'certificate_chain'],
  ['Failed to verify certificate chain', 'certificate_chain'],
  ['CaUsedAsEndEntity', 'certificate_chain'],
  ['Certificate is expired or not yet valid', 'certificate_expired'],
  ['Certificate is revoked', 'certificate_revoked'],
  ['Signature is invalid for qe_report', 'quote_signature'],
  ['QE report hash mismatch', 'quote_signature'],
  ['ISV enclave report signature is invalid', 'quote_signature'],
  ['QE MRSIGNER mismatch', 'qe_identity_mismatch'],
  ['QE ISVPRODID mismatch', 'qe_identity_mismatch'],
  ['QE MISCSELECT mismatch', 'qe_identity_mismatch'],
  ['QE ATTRIBUTES mismatch', 'qe_identity_mismatch'],
  ['QE ISVSVN', 'qe_identity_mismatch'],
  ['No matching TCB level found', 'tcb_status_refused'],
  ['TCB status is invalid', 'tcb_status_refused'],
  ['Debug mode is enabled', 'td_attributes'],
  ['Reserved bits in TD attributes are set', 'td_attributes'],
  ['SEPT_VE_DISABLE is not enabled', 'td_attributes'],
  ['Invalid mr service td', 'td_attributes'],
];

/**
 * The reason for a message of the library. Anything it does not know (a parse error deep in a
 * certificate, say) is the quote's or the collateral's bytes being wrong: `malformed_quote` names
 * that without claiming a check that did not run.
 */
export function dcapRefusalOf(message: string): AttestationFailure {
  for (const [prefix, failure] of DCAP_REFUSALS) if (message.startsWith(prefix)) return failure;
  return 'malformed_quote';
}
