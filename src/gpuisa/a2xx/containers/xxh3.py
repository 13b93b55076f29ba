"""XXH3-64 with seed 0 and the default secret: the hash Xenia names its shader dumps with.

Xenia hashes a shader's microcode as it lies in guest memory (big-endian dwords) with
``XXH3_64bits`` and prints it as 16 upper-case hex digits in ``shader_<HASH>.ucode.bin.*``
(a2xx-formats.md#xenia-hash).  The algorithm is xxHash's published XXH3 (version 0.8),
written out here so that gpuisa needs no compiled extension; its test compares it with
values computed by the reference implementation (tests/a2xx/data/xxh3-vectors.txt).
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_P32_1, _P32_2, _P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
_P64_1, _P64_2, _P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P64_4, _P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_MX1, _MX2 = 0x165667919E3779F9, 0x9FB21C651E98DF25
# xxHash's default 192-byte secret (XXH3_kSecret), a constant of the specification.
_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
_STRIPE = 64
_STRIPES_PER_BLOCK = (len(_SECRET) - _STRIPE) // 8


def _u64(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 8], "little")


def _u32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "little")


def _fold(a: int, b: int) -> int:
    """The 128-bit product of two 64-bit numbers, its halves xor-ed together."""
    product = a * b
    return (product ^ (product >> 64)) & _MASK


def _avalanche(h: int) -> int:
    h ^= h >> 37
    h = (h * _MX1) & _MASK
    return h ^ (h >> 32)


def _xxh64_avalanche(h: int) -> int:
    h ^= h >> 33
    h = (h * _P64_2) & _MASK
    h ^= h >> 29
    h = (h * _P64_3) & _MASK
    return h ^ (h >> 32)


def _rotl(h: int, r: int) -> int:
    return ((h << r) | (h >> (64 - r))) & _MASK


def _mix16(data: bytes, at: int, secret_at: int) -> int:
    return _fold(
        _u64(data, at) ^ _u64(_SECRET, secret_at), _u64(data, at + 8) ^ _u64(_SECRET, secret_at + 8)
    )


def _short(data: bytes) -> int:
    n = len(data)
    if n > 8:
        low = _u64(data, 0) ^ (_u64(_SECRET, 24) ^ _u64(_SECRET, 32))
        high = _u64(data, n - 8) ^ (_u64(_SECRET, 40) ^ _u64(_SECRET, 48))
        swapped = int.from_bytes(low.to_bytes(8, "little"), "big")
        return _avalanche((n + swapped + high + _fold(low, high)) & _MASK)
    if n >= 4:
        keyed = (_u32(data, n - 4) + (_u32(data, 0) << 32)) ^ (_u64(_SECRET, 8) ^ _u64(_SECRET, 16))
        h = keyed ^ _rotl(keyed, 49) ^ _rotl(keyed, 24)
        h = (h * _MX2) & _MASK
        h ^= (h >> 35) + n
        h = (h * _MX2) & _MASK
        return h ^ (h >> 28)
    if n:
        combined = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        return _xxh64_avalanche(combined ^ (_u32(_SECRET, 0) ^ _u32(_SECRET, 4)))
    return _xxh64_avalanche(_u64(_SECRET, 56) ^ _u64(_SECRET, 64))


def _medium(data: bytes) -> int:
    n = len(data)
    acc = (n * _P64_1) & _MASK
    if n <= 128:
        for k in range((n - 1) // 32, -1, -1):
            acc += _mix16(data, 16 * k, 32 * k) + _mix16(data, n - 16 * (k + 1), 32 * k + 16)
        return _avalanche(acc & _MASK)
    for k in range(8):
        acc += _mix16(data, 16 * k, 16 * k)
    acc = _avalanche(acc & _MASK)
    for k in range(8, n // 16):
        acc += _mix16(data, 16 * k, 16 * (k - 8) + 3)
    acc += _mix16(data, n - 16, 136 - 17)
    return _avalanche(acc & _MASK)


def _accumulate(acc: list[int], data: bytes, at: int, secret_at: int) -> None:
    for lane in range(8):
        value = _u64(data, at + 8 * lane)
        key = value ^ _u64(_SECRET, secret_at + 8 * lane)
        acc[lane ^ 1] = (acc[lane ^ 1] + value) & _MASK
        acc[lane] = (acc[lane] + (key & 0xFFFFFFFF) * (key >> 32)) & _MASK


def _long(data: bytes) -> int:
    n = len(data)
    acc = [_P32_3, _P64_1, _P64_2, _P64_3, _P64_4, _P32_2, _P64_5, _P32_1]
    block = _STRIPE * _STRIPES_PER_BLOCK
    blocks = (n - 1) // block
    for b in range(blocks):
        for s in range(_STRIPES_PER_BLOCK):
            _accumulate(acc, data, b * block + s * _STRIPE, 8 * s)
        scramble = len(_SECRET) - _STRIPE
        for lane in range(8):
            h = acc[lane] ^ (acc[lane] >> 47) ^ _u64(_SECRET, scramble + 8 * lane)
            acc[lane] = (h * _P32_1) & _MASK
    for s in range(((n - 1) - block * blocks) // _STRIPE):
        _accumulate(acc, data, blocks * block + s * _STRIPE, 8 * s)
    _accumulate(acc, data, n - _STRIPE, len(_SECRET) - _STRIPE - 7)
    result = (n * _P64_1) & _MASK
    for pair in range(4):
        result += _fold(
            acc[2 * pair] ^ _u64(_SECRET, 11 + 16 * pair),
            acc[2 * pair + 1] ^ _u64(_SECRET, 11 + 16 * pair + 8),
        )
    return _avalanche(result & _MASK)


def xxh3_64(data: bytes) -> int:
    """``XXH3_64bits(data)``: xxHash's 64-bit XXH3 with seed 0 and the default secret."""
    if len(data) <= 16:
        return _short(data)
    if len(data) <= 240:
        return _medium(data)
    return _long(data)
