import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DcapCollateral } from './dcap-test-pki.ts';

/**
 * A collateral service on loopback that answers the four requests a DCAP client makes of a PCCS
 * (PCK CRL, root CA CRL, TDX TCB info for an FMSPC, TD QE identity), with the issuer chains in the
 * headers a PCCS uses, serving a DcapTestPki's collateral. It lets the SDK's `collateral: { url }`
 * path run against a real HTTP server. `requests` lists the paths asked for.
 */
export interface TestPccs {
  readonly url: string;
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function startTestPccs(collateral: DcapCollateral): Promise<TestPccs> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push(path);
    const chain = (name: string, pem: string) => response.setHeader(name, encodeURIComponent(pem));
    if (path.startsWith('/sgx/certification/v4/pckcrl?ca=platform')) {
      chain('SGX-PCK-CRL-Issuer-Chain', collateral.pck_crl_issuer_chain);
      response.end(Buffer.from(collateral.pck_crl, 'hex'));
    } else if (path === '/sgx/certification/v4/rootcacrl') {
      response.end(collateral.root_ca_crl);
    } else if (path.startsWith('/tdx/certification/v4/tcb?fmspc=')) {
      chain('SGX-TCB-Info-Issuer-Chain', collateral.tcb_info_issuer_chain);
      response.end(`{"tcbInfo":${collateral.tcb_info},"signature":"${collateral.tcb_info_signature}"}`);
    } else if (path === '/tdx/certification/v4/qe/identity?update=standard') {
      chain('SGX-Enclave-Identity-Issuer-Chain', collateral.qe_identity_issuer_chain);
      response.end(
        `{"enclaveIdentity":${collateral.qe_identity},"signature":"${collateral.qe_identity_signature}"}`,
      );
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sgx/certification/v4/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
