/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-compat.h - what the kernel's vDSO readers take from the kernel's
 * own headers and the kernel build, given in user space as the x86-64
 * guest kernel has it. Shared by shim.h (the tod reader, todread.c) and
 * stockread.c (the stock lib/vdso reader), so that both readers are
 * compiled against the same definitions.
 */
#ifndef NEWTOD_BENCH_HOST_KERNEL_COMPAT_H
#define NEWTOD_BENCH_HOST_KERNEL_COMPAT_H

#include <stdint.h>

/* the guest kernel's options that the readers test */
#define CONFIG_ARCH_SUPPORTS_INT128	1
#define CONFIG_TIME_NS			1

/*
 * <linux/kconfig.h>: IS_ENABLED() of the options the readers test, as the
 * guest kernel has them; any other option fails the build.
 */
#define IS_ENABLED(option)		__compat_##option
#define __compat_CONFIG_TIME_NS		1

/* <linux/types.h>, <linux/compiler*.h> */
typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
typedef unsigned __int128 u128;

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __maybe_unused		__attribute__((__unused__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define notrace			__attribute__((__no_instrument_function__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	(*(volatile __typeof__(x) *)&(x) = (val))

/* <asm/barrier.h>, x86-64: loads are not reordered with loads, nor stores with stores */
#define _ASM_X86_BARRIER_H
#define smp_rmb()		barrier()
#define smp_wmb()		barrier()

/* <asm/page_types.h> */
#ifndef PAGE_SIZE
#define PAGE_SIZE		4096UL
#endif

/* <vdso/time64.h> */
#define NSEC_PER_USEC		1000L
#define NSEC_PER_MSEC		1000000L
#define NSEC_PER_SEC		1000000000L

/* <asm/msr.h>: rdtsc_ordered() is lfence; rdtsc (the kernel patches in rdtscp on some CPUs) */
static __always_inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return (u64)hi << 32 | lo;
}

static __always_inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a" (lo), "=d" (hi) : : "memory");
	return (u64)hi << 32 | lo;
}

#endif /* NEWTOD_BENCH_HOST_KERNEL_COMPAT_H */
