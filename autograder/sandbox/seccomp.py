"""The system calls a submission may not make: a seccomp filter, the last layer of `enclose`.

Namespaces, an allow-list file system and no capabilities leave a submission little to reach,
but a few kernel interfaces are not namespaced or give back what the rest took away:

* the kernel's keyrings (keyctl, add_key, request_key): the session and user keyrings of the
  grader, with whatever credentials they hold, readable and writable, and kept after the
  sandbox is gone (a way to pass notes to the next student);
* new processes (fork, vfork, clone without CLONE_THREAD; threads are made as before): the
  Python guard refuses Python's own ways, and through ctypes each process would have an
  address-space limit of its own (five held 10.7 GB under a 3 GiB limit);
* new namespaces (unshare, setns, clone with a CLONE_NEW* flag; clone3, whose flags a filter
  cannot read, answers "not implemented", and the C library then uses clone): a new user
  namespace gives a full set of capabilities in it, and with them the kernel code (mounts,
  netfilter) that most privilege escalations go through; mounts (mount, umount2, pivot_root,
  the new mount API);
* memory that the address-space limit does not count (memfd_create, memfd_secret, SysV
  shared memory and message queues): pages a process can fill without end; and io_setup,
  whose contexts come out of one limit for the whole machine;
* bpf, userfaultfd, perf_event_open, io_uring, ptrace, process_vm_readv/writev,
  open_by_handle_at and module loading: large attack surfaces that no notebook needs.

Those answer EPERM (clone3: ENOSYS). A system call of another ABI (32-bit calls in a 64-bit
process, x32) kills the process, so that the table cannot be bypassed by another numbering.
The filter is inherited by every process and thread the submission starts, and cannot be
removed. On machines other than x86_64 and aarch64 there is none: `install` says so.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

# from linux/audit.h, linux/seccomp.h, linux/filter.h
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16          # in struct seccomp_data (little-endian)
CLONE_NEW = 0x7E020000     # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_THREAD = 0x00010000

# name: (x86_64 number, aarch64 number or None: no such call there); numbers from 403 on are
# the same on every machine
DENIED = {
    "fork": (57, None), "vfork": (58, None),
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    "unshare": (272, 97), "setns": (308, 268),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    "memfd_create": (319, 279), "memfd_secret": (447, 447), "shmget": (29, 194),
    "msgget": (68, 186), "io_setup": (206, 0),
    "bpf": (321, 280), "userfaultfd": (323, 282), "perf_event_open": (298, 241),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294),
}
CLONE, CLONE3 = {"x86_64": 56, "aarch64": 220}, 435


def _op(code, k, jt=0, jf=0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str) -> bytes:
    """The filter for `machine` (platform.machine()), as classic BPF instructions."""
    column = 0 if machine == "x86_64" else 1
    eperm, enosys = RET_ERRNO | errno.EPERM, RET_ERRNO | errno.ENOSYS
    code = [_op(LD_W_ABS, ARCH_OFFSET), _op(JEQ_K, AUDIT_ARCH[machine], jf=0, jt=1),
            _op(RET_K, RET_KILL_PROCESS), _op(LD_W_ABS, NR_OFFSET)]
    if machine == "x86_64":           # the x32 ABI: the same calls under other numbers
        code += [_op(JGE_K, X32_SYSCALL_BIT, jt=0, jf=1), _op(RET_K, RET_KILL_PROCESS)]
    for numbers in DENIED.values():   # if nr == n: EPERM, else the next test
        if numbers[column] is not None:
            code += [_op(JEQ_K, numbers[column], jt=0, jf=1), _op(RET_K, eperm)]
    code += [_op(JEQ_K, CLONE3, jt=0, jf=1), _op(RET_K, enosys),
             _op(JEQ_K, CLONE[machine], jt=0, jf=4),          # clone: look at its flags
             _op(LD_W_ABS, ARG0_OFFSET),
             _op(JSET_K, CLONE_NEW, jt=1, jf=0),              # a new namespace: EPERM
             _op(JSET_K, CLONE_THREAD, jt=1, jf=0),           # a thread: allowed; a process: EPERM
             _op(RET_K, eperm), _op(RET_K, RET_ALLOW)]
    return b"".join(code)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(libc) -> bool:
    """Install the filter in this process (after PR_SET_NO_NEW_PRIVS); False on a machine
    without a table here. Raises OSError if the kernel refuses it."""
    machine = platform.machine()
    if machine not in AUDIT_ARCH:
        return False
    code = program(machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog),
                  ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"the kernel refused the seccomp filter: {os.strerror(error)}")
    return True
