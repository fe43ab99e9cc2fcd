/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a frame tag costs (docs/wire.md, "Trust model"; docs/benchmarks.md,
 * "Frame tags"): the sender's compute and the receiver's compute + compare,
 * as lca_remote_auth.c does them, per frame of the sizes that matter, for
 * the tag lcactor uses (SipHash-2-4, crypto_shorthash) and, for the
 * choice, HMAC-SHA512-256 (crypto_auth) and Poly1305 (crypto_onetimeauth,
 * with the per-frame key a one-time MAC needs: crypto_stream_chacha20)
 * and AES-256-GCM over the frame as associated data (a GMAC: the fastest
 * of libsodium's where the CPU has AES-NI and PCLMUL).
 * A figure, not a test: run it under callgrind and divide each
 * function's inclusive instructions by the rounds
 *
 *   valgrind --tool=callgrind --callgrind-out-file=tag.out build/tests/bench_tag 10000 1506
 *   callgrind_annotate --inclusive=yes tag.out | grep round_
 *
 * (the second argument: only that size, else all three)
 *
 * or without valgrind for a (noisy, shared machine) time per round.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

/* Bytes a tag covers: a full 1514-byte frame less its 8-byte tag; a frame
 * of one 64-byte message (78 bytes of headers, an 80-byte record); an ack
 * or heartbeat (headers only). */
static const unsigned int sizes[] = { 1506, 158, 78 };

static uint8_t frame[1514];
static uint8_t key16[crypto_shorthash_KEYBYTES];
static uint8_t key32[crypto_auth_KEYBYTES];
static volatile int sink;

/* Sender and receiver of one frame of @p len bytes: SipHash-2-4, 8 bytes. */
static __attribute__((noinline)) void
round_siphash(unsigned int len)
{
	uint8_t t[crypto_shorthash_BYTES], v[crypto_shorthash_BYTES];

	crypto_shorthash(t, frame, len, key16);
	crypto_shorthash(v, frame, len, key16);
	sink += sodium_memcmp(t, v, sizeof(t));
}

/* The same with HMAC-SHA512-256, its 32-byte tag (cut to 8 on the wire,
 * the cost is the same). */
static __attribute__((noinline)) void
round_hmac(unsigned int len)
{
	uint8_t t[crypto_auth_BYTES];

	crypto_auth(t, frame, len, key32);
	sink += crypto_auth_verify(t, frame, len, key32);
}

/* Poly1305 needs a key per message: ChaCha20 of a nonce (the frame's seq
 * and session) makes it, at each end. */
static __attribute__((noinline)) void
round_poly1305(unsigned int len)
{
	uint8_t k[crypto_onetimeauth_KEYBYTES], t[crypto_onetimeauth_BYTES];
	uint8_t nonce[crypto_stream_chacha20_NONCEBYTES] = { 1 };

	crypto_stream_chacha20(k, sizeof(k), nonce, key32);
	crypto_onetimeauth(t, frame, len, k);
	crypto_stream_chacha20(k, sizeof(k), nonce, key32);
	sink += crypto_onetimeauth_verify(t, frame, len, k);
}

/* AES-256-GCM with nothing to encrypt: its tag over the frame, a GMAC; a
 * nonce a frame, as Poly1305's. Where the CPU lacks AES-NI: skipped. */
static crypto_aead_aes256gcm_state gcm;

static __attribute__((noinline)) void
round_gmac(unsigned int len)
{
	uint8_t t[crypto_aead_aes256gcm_ABYTES], none[1] = { 0 };
	uint8_t nonce[crypto_aead_aes256gcm_NPUBBYTES] = { 1 };
	unsigned long long tlen;

	crypto_aead_aes256gcm_encrypt_detached_afternm(none, t, &tlen, none, 0, frame, len, NULL,
						       nonce, &gcm);
	sink += crypto_aead_aes256gcm_decrypt_detached_afternm(none, NULL, none, 0, t, frame, len,
								nonce, &gcm);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	static void (*const fns[])(unsigned int) = { round_siphash, round_hmac, round_poly1305,
						     round_gmac };
	static const char *const names[] = { "siphash24", "hmac-sha512-256", "poly1305+chacha20",
					     "aes256gcm-gmac" };
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	unsigned long only = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;

	if (sodium_init() < 0 || rounds == 0) {
		fprintf(stderr, "usage: bench_tag [ROUNDS] (libsodium must initialise)\n");
		return 1;
	}
	randombytes_buf(frame, sizeof(frame));
	randombytes_buf(key16, sizeof(key16));
	randombytes_buf(key32, sizeof(key32));
	if (crypto_aead_aes256gcm_is_available())
		crypto_aead_aes256gcm_beforenm(&gcm, key32);
	for (unsigned int f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		if (fns[f] == round_gmac && !crypto_aead_aes256gcm_is_available()) {
			printf("%-18s skipped: this CPU has no AES-NI and PCLMUL\n", names[f]);
			continue;
		}
		for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			double t0;

			if (only != 0 && sizes[s] != only)
				continue;
			t0 = now_ns();
			for (unsigned long i = 0; i < rounds; i++)
				fns[f](sizes[s]);
			printf("%-18s %4u bytes: %8.1f ns per frame (tag + check)\n", names[f],
			       sizes[s], (now_ns() - t0) / (double)rounds);
		}
	}
	return sink == 0 ? 0 : 2;
}
