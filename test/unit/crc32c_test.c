/*
 * crc32c_test.c - CRC-32C: known values, hardware == software on random
 * buffers of every length/alignment class, chaining, and a throughput
 * measurement that is printed (not asserted, machines differ).
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "innodb/crc32c.h"

static void test_known_values(void)
{
	CU_ASSERT_EQUAL(crc32c("123456789", 9), 0xE3069283u);
	CU_ASSERT_EQUAL(crc32c_update_sw(0, "123456789", 9), 0xE3069283u);
	CU_ASSERT_EQUAL(crc32c("", 0), 0u);
	/* RFC 3720 B.4 test vectors */
	uint8_t buf[48];
	memset(buf, 0, 32);
	CU_ASSERT_EQUAL(crc32c(buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, 32);
	CU_ASSERT_EQUAL(crc32c(buf, 32), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(crc32c(buf, 32), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	CU_ASSERT_EQUAL(crc32c(buf, 32), 0x113FDB5Cu);
	/* the FILE_CHECKPOINT record of doc/redo-records.md §9: CRC 0x442f01a8 */
	static const uint8_t cp[] = {0xfa, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x0b};
	CU_ASSERT_EQUAL(crc32c(cp, sizeof cp), 0x442f01a8u);
}

static void test_hw_equals_sw(void)
{
	if (!crc32c_have_hw()) {
		printf("(no sse4.2: hw path not tested) ");
		return;
	}
	size_t max = 3 * 4096 * 3 + 777;
	uint8_t *buf = malloc(max + 16);
	CU_ASSERT_FATAL(buf != NULL);
	srand(12345);
	for (size_t i = 0; i < max + 16; i++)
		buf[i] = (uint8_t)rand();
	static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 255, 767, 768, 769, 1000, 4096,
				      12287, 12288, 12289, 16380, 16384, 3 * 4096 * 3 + 777};
	for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
		for (size_t off = 0; off < 9; off++) {
			uint32_t a = crc32c_update_hw(0x12345678u, buf + off, lens[li]);
			uint32_t b = crc32c_update_sw(0x12345678u, buf + off, lens[li]);
			CU_ASSERT_EQUAL(a, b);
		}
	for (int iter = 0; iter < 2000; iter++) {
		size_t off = (size_t)rand() % 16, len = (size_t)rand() % max;
		CU_ASSERT_EQUAL(crc32c_update_hw(0, buf + off, len), crc32c_update_sw(0, buf + off, len));
	}
	free(buf);
}

static void test_chaining(void)
{
	uint8_t buf[5000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	uint32_t whole = crc32c(buf, sizeof buf);
	for (size_t cut = 0; cut <= sizeof buf; cut += 333) {
		CU_ASSERT_EQUAL(crc32c_update(crc32c(buf, cut), buf + cut, sizeof buf - cut), whole);
		CU_ASSERT_EQUAL(crc32c_update_sw(crc32c_update_sw(0, buf, cut), buf + cut, sizeof buf - cut),
				whole);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double measure(uint32_t (*fn)(uint32_t, const void *, size_t), const uint8_t *buf,
		      size_t len, size_t total)
{
	volatile uint32_t sink = 0;
	double t0 = now_s();
	for (size_t done = 0; done < total; done += len)
		sink ^= fn(sink, buf, len);
	return (double)total / (now_s() - t0) / 1e9;
}

static void test_throughput(void)
{
	size_t len = 16384;
	uint8_t *buf = malloc(len);
	CU_ASSERT_FATAL(buf != NULL);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 13);
	double sw = measure(crc32c_update_sw, buf, len, (size_t)256 << 20);
	printf("\n    crc32c %s: 16 KiB pages: ", crc32c_impl_name());
	if (crc32c_have_hw())
		printf("hw %.2f GB/s, ", measure(crc32c_update_hw, buf, len, (size_t)2048 << 20));
	printf("sw %.2f GB/s ... ", sw);
	free(buf);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("crc32c", NULL, NULL);
	CU_add_test(s, "known values", test_known_values);
	CU_add_test(s, "hardware equals software", test_hw_equals_sw);
	CU_add_test(s, "chaining", test_chaining);
	CU_add_test(s, "throughput", test_throughput);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
