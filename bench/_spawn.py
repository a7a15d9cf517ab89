"""Runs one command and reports its wall time, peak RSS and CPU time on a file descriptor.

    python -I -S bench/_spawn.py FD PROGRAM [ARG ...]

Why a separate small process: Linux keeps a process's peak RSS across ``exec``, so a child
spawned by the benchmark itself (a Python process holding the fake server and, for the session
figures, tens of megabytes of test data) would report at least the benchmark's own size. This
launcher is a bare interpreter (``-I -S``, nothing imported but ``os``/``sys``/``time``), so the
floor it adds is a few megabytes, below any program measured. Times are ``time.perf_counter``
(``CLOCK_MONOTONIC``, the same clock in every process), so the benchmark can compare them with
the times its server saw requests.
"""

import os
import sys
import time


def main() -> None:
    fd = int(sys.argv[1])
    argv = sys.argv[2:]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _pid, status, usage = os.wait4(pid, 0)
    end = time.perf_counter()
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    os.write(fd, f"{start!r} {end!r} {usage.ru_maxrss} {code} {cpu!r}\n".encode())
    os.close(fd)


if __name__ == "__main__":
    main()
