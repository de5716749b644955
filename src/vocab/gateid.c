/* gateid.c: the gates' ids and job kinds (gateid.h). */
#include "calops.h"

#include "vocab/gateid.h"

const struct gateid gateid_table[GATE_COUNT] = {
	{ "G0", GATEJOB_TOOL },
	{ "G1", GATEJOB_TOOL },
	{ "G2", GATEJOB_TOOL },
	{ "G3", GATEJOB_TOOL },
	{ "G4", GATEJOB_TOOL },
	{ "G5", GATEJOB_REPRO },
	{ "G6", GATEJOB_TOOL },
	{ "G7", GATEJOB_SUITE },
	{ "G8", GATEJOB_CHIP_TOOL },
	{ "G9", GATEJOB_SOAK },
	{ "G10", GATEJOB_TOOL },
};

int
gateid_index(const char *id)
{
	int g;

	for (g = 0; id != NULL && g < GATE_COUNT; g++)
		if (strcmp(gateid_table[g].id, id) == 0)
			return g;
	return -1;
}

enum gatejob
gateid_job(int g)
{
	return g >= 0 && g < GATE_COUNT ? gateid_table[g].job : GATEJOB_TOOL;
}

bool
gateid_runner(int g)
{
	return gateid_job(g) == GATEJOB_SUITE || gateid_job(g) == GATEJOB_SOAK;
}

int
gateid_of(enum gatejob job)
{
	int g;

	for (g = 0; job != GATEJOB_TOOL && g < GATE_COUNT; g++)
		if (gateid_table[g].job == job)
			return g;
	return -1;
}
