/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small unit-test harness: tests are declared in a table, each check
 * reports file:line and what it expected, the output is KTAP v1 and ends
 * with "N passed, N failed". Exit status 0 when every test passed.
 */
#ifndef TUNLAB_CHECK_H
#define TUNLAB_CHECK_H

#include <stdbool.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern const char *check_data_dir;

void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int check_run(const struct unit_test *tests, int n);

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			check_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define CHECK_INT(a, b)							\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_)						\
			check_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
				   #a, a_, #b, b_);			\
	} while (0)

#define CHECK_STR(a, b)							\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_))			\
			check_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
				   #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#define CHECK_CONTAINS(hay, needle)					\
	do {								\
		const char *h_ = (hay), *n_ = (needle);			\
		if (!h_ || !strstr(h_, n_))				\
			check_fail(__FILE__, __LINE__, "%s does not contain \"%s\": \"%s\"", \
				   #hay, n_, h_ ? h_ : "(null)");	\
	} while (0)

#endif
