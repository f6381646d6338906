// openblas-sgemm N [REPS]: OpenBLAS's cblas_sgemm on N x N x N, row-major,
// no transposition, alpha 1, beta 0: the mean of REPS calls (default 5)
// after one call that warms up, in GFLOP/s, as one JSON line: the statistic
// Go's benchmark reports for net/gemm's side. The machine's fp32 reference for net/gemm's
// Sgemm (docs/repro/sgemm-vs.sh builds and runs it).
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: openblas-sgemm N [REPS]\n");
		return 2;
	}
	int n = atoi(argv[1]), reps = argc > 2 ? atoi(argv[2]) : 5;
	if (n <= 0 || reps <= 0) {
		fprintf(stderr, "openblas-sgemm: N and REPS must be positive\n");
		return 2;
	}
	float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n), *c = malloc(sizeof(float) * n * n);
	if (!a || !b || !c) {
		fprintf(stderr, "openblas-sgemm: out of memory\n");
		return 1;
	}
	srand(1);
	for (long i = 0; i < (long)n * n; i++) {
		a[i] = (float)rand() / RAND_MAX - 0.5f;
		b[i] = (float)rand() / RAND_MAX - 0.5f;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
	double t0 = now();
	for (int r = 0; r < reps; r++)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
	double mean = (now() - t0) / reps;
	printf("{\"reference\":\"openblas\",\"n\":%d,\"gflops\":%.1f,\"core\":\"%s\"}\n", n, 2.0 * n * n * n / mean / 1e9, openblas_get_corename());
	return 0;
}
