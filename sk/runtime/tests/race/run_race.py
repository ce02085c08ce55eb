"""Child process of the race check: launches the producer/consumer SK once
on a ThreadSanitizer-built twin (started with sk.twin.binding.tsan_env())."""

import sys

from sk.twin import binding as twin


def main(runtime_lib: str, kernel_lib: str) -> int:
    rt = twin.Twin(runtime_lib)
    kernels = rt.load_kernels(kernel_lib)
    blocks = 8
    data = rt.alloc(blocks * 256 * 4)
    out = rt.alloc(blocks * 256 * 4)
    spec = twin.LaunchSpec(name="producer_consumer_sk", entry=rt.symbol(kernels, "producer_consumer_sk"),
                           block_dim=blocks, ration="0:1", params=[0, data, out], timeout_ms=60000)
    rt.launch(spec)
    print("launched ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
