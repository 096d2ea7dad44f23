#!/usr/bin/env python3
"""Records the rtnetlink dumps ferryd's network monitor asks for (issue 31), as test vectors:
RTM_GETLINK, RTM_GETADDR and RTM_GETROUTE (AF_UNSPEC: both families), each reply printed as
one line of hex, every message of the dump up to and including NLMSG_DONE.

Run it inside a network namespace of its own (`unshare -n`), never to record a real machine's
links: Tests/FerryDaemonTests/Fixtures/netlink/*.hex were made with
  unshare -n sh -c 'ip link set lo up; python3 tools/netlink-dump.py'
and, for the online case, a veth pair and a default route added first (docs/NETWORK.md).
"""

import socket
import struct

RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE = 18, 22, 26
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2


def dump(sock, kind, seq):
    # nlmsghdr + rtgenmsg (family AF_UNSPEC), padded to 4 bytes: 20 bytes.
    body = struct.pack("=B3x", socket.AF_UNSPEC)
    sock.send(struct.pack("=IHHII", 16 + len(body), kind, NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + body)
    out = b""
    while True:
        data = sock.recv(65536)
        out += data
        offset, done = 0, False
        while offset + 16 <= len(data):
            length, mtype = struct.unpack_from("=IH", data, offset)
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                done = True
            offset += (length + 3) & ~3
        if done:
            return out


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sock.bind((0, 0))
    for seq, kind in enumerate((RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE), start=1):
        print(dump(sock, kind, seq).hex())


if __name__ == "__main__":
    main()
