import type { LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// dns is required at the first lookup, not imported: every server imports this, few reach out,
// and loading dns sets up its resolver (c-ares) in each of them.
const require = createRequire(import.meta.url);
const dns = (): typeof import('node:dns') => require('node:dns');

/** Ranges a server may not reach for an outside request, most specific first, so the reason names the worst match. */
const REFUSED: readonly [cidr: string, reason: string][] = [
  ['169.254.169.254/32', 'the cloud metadata service (AWS, GCP, Azure, OpenStack)'],
  ['fd00:ec2::254/128', 'the AWS metadata service over IPv6'],
  ['100.100.100.200/32', 'the Alibaba Cloud metadata service'],
  ['168.63.129.16/32', 'the Azure platform endpoint (WireServer)'],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['10.0.0.0/8', 'a private network address'],
  ['172.16.0.0/12', 'a private network address'],
  ['192.168.0.0/16', 'a private network address'],
  ['100.64.0.0/10', 'a carrier-grade NAT (shared) address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::ffff:0:0/96', 'an IPv4-mapped IPv6 address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001:db8::/32', 'a documentation address'],
  ['fc00::/7', 'a unique-local (private) IPv6 address'],
  ['fe80::/10', 'a link-local address'],
  ['ff00::/8', 'a multicast address'],
];

/**
 * IPv6 forms that carry an IPv4 address and reach it: NAT64 (64:ff9b::/96, where a DNS64 resolver
 * puts every IPv4-only host), IPv4-compatible (::/96) and 6to4 (2002::/16). Each refused IPv4
 * range is refused inside them too; the public IPv4 addresses they carry stay allowed.
 */
function embeddingsOf([cidr, reason]: readonly [string, string]): [string, string][] {
  const [network, prefix] = cidr.split('/') as [string, string];
  if (isIP(network) !== 4) return [];
  const [a, b, c, d] = network.split('.').map(Number) as [number, number, number, number];
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  const bits = Number(prefix);
  return [
    [`64:ff9b::${high}:${low}/${96 + bits}`, `a NAT64 address of ${reason}`],
    [`::${high}:${low}/${96 + bits}`, `an IPv4-compatible address of ${reason}`],
    [`2002:${high}:${low}::/${16 + bits}`, `a 6to4 address of ${reason}`],
  ];
}

type RefusedRange = { family: 'ipv4' | 'ipv6'; list: BlockList; reason: string };
let refusedRanges: RefusedRange[] | undefined;

/** The refused ranges as block lists, made on the first check: every server imports this, few reach out. */
function blockLists(): RefusedRange[] {
  refusedRanges ??= [...REFUSED, ...REFUSED.flatMap(embeddingsOf)].map(([cidr, reason]) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
    const list = new BlockList();
    list.addSubnet(network, Number(prefix), family);
    return { family, list, reason };
  });
  return refusedRanges;
}

/** Why an outside request may not reach this address, or undefined when it is a public one. */
export function refusalReason(address: string): string | undefined {
  const version = isIP(address);
  if (version === 0) return 'not an IP address';
  const family = version === 6 ? 'ipv6' : 'ipv4';
  return blockLists().find((entry) => entry.family === family && entry.list.check(address, family))?.reason;
}

/** A fetch the guard refused; the message says which address and why, and how to allow it. */
export class NetworkRefusal extends Error {
  override readonly name = 'NetworkRefusal';
  readonly code = 'ERR_TOOLMESH_NETWORK_REFUSED';
}

function refusal(host: string, address: string, reason: string): NetworkRefusal {
  const via = host === address ? address : `${host} (${address})`;
  return new NetworkRefusal(
    `refused to connect to ${via}: it is ${reason}. Only public addresses are reached; start the server with --allow-private-network to allow private ones`,
  );
}

/** Refuses an IP written in the URL itself, which Node connects to without a lookup. */
export function checkLiteralHost(hostname: string, allowPrivate: boolean): void {
  const address = hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(address) === 0) return;
  const reason = refusalReason(address);
  if (reason) throw refusal(address, address, reason);
}

/**
 * A `lookup` for http.request that resolves the name itself and refuses it when any address it
 * resolves to is refused. The socket connects to the addresses this returns, so what was checked is
 * what is used: a DNS answer that changes between check and connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns().lookup(hostname, { all: true, verbatim: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const reason = refusalReason(address);
          if (reason) {
            callback(refusal(hostname, address, reason) as NodeJS.ErrnoException, '', 0);
            return;
          }
        }
      }
      const [first] = addresses;
      if (!first) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
