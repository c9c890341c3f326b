/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder: implemented in a later commit. */
#include <unic/mem.h>
