/* SPDX-License-Identifier: MIT */
/*
 * The walker's visitor (visit.c): the top of a run's checking. For every
 * entry the walk meets, it checks a directory, symlink or other inode on
 * the walker, or queues a regular file's task (sched/task.h), and hands
 * each entry to the outputs (output.h) in walk order.
 */
#ifndef FSCK_VISIT_H
#define FSCK_VISIT_H

#include "check/check.h"

/* The visitor to hand to walk_tree(), once ck's scheduler has started. */
void visit_init(struct checker *ck, struct walk_visitor *v);

/*
 * After the walk: wait for every task and print what is pending; count
 * the further names of hard-linked files for -p. Returns the error that
 * stopped a task, or 0.
 */
int visit_finish(struct checker *ck);

#endif
