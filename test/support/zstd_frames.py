"""Strict zstd decompression for the tests, by an implementation other than the product's (which
writes with @bokuweb/zstd-wasm): PyPI's zstandard, libzstd's bindings, from .tools/pyreaders.
Every frame must end whole, as `zstd -t` demands. Run as a script: decompresses argv[1] to stdout."""
import sys

import zstandard


def unzstd(data):
    out = []
    while data:
        frame = zstandard.ZstdDecompressor().decompressobj()
        out.append(frame.decompress(data))
        if not frame.eof:
            raise ValueError("zstd: the data ends inside a frame")
        data = frame.unused_data
    return b"".join(out)


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        sys.stdout.buffer.write(unzstd(f.read()))
