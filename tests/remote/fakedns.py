#!/usr/bin/env python3
"""fakedns.py: a DNS server on 127.0.0.1:53 (UDP) for sshcanon_test.sh.

    fakedns.py LOG READY hang            every query is kept, never answered
    fakedns.py LOG READY NAME=ADDR...    each NAME (A) is its ADDR; any other
                                         name does not exist (AAAA of a
                                         NAME: no data)

Each query's name is appended to LOG, one a line, as it arrives; READY is
made once the socket listens.
"""
import socket
import struct
import sys


def qname(msg):
    """The question's name and where the question ends."""
    labels, i = [], 12
    while msg[i] != 0:
        n = msg[i]
        labels.append(msg[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    return ".".join(labels).lower(), i + 5


def answer(msg, known):
    name, end = qname(msg)
    qtype = struct.unpack("!H", msg[end - 4:end - 2])[0]
    ident = msg[:2]
    if name not in known:
        return ident + struct.pack("!HHHHH", 0x8183, 1, 0, 0, 0) + \
            msg[12:end]
    if qtype != 1:
        return ident + struct.pack("!HHHHH", 0x8180, 1, 0, 0, 0) + \
            msg[12:end]
    rr = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + \
        socket.inet_aton(known[name])
    return ident + struct.pack("!HHHHH", 0x8180, 1, 1, 0, 0) + \
        msg[12:end] + rr


def main():
    log, ready, mode = sys.argv[1:4]
    known = {}
    for arg in sys.argv[3:] if mode != "hang" else []:
        name, addr = arg.split("=", 1)
        known[name.lower().rstrip(".")] = addr
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 53))
    open(ready, "w").close()
    while True:
        msg, peer = s.recvfrom(4096)
        if len(msg) < 17:
            continue
        with open(log, "a") as f:
            f.write(qname(msg)[0] + "\n")
        if mode != "hang":
            s.sendto(answer(msg, known), peer)


if __name__ == "__main__":
    main()
