#!/bin/sh
# valgrind-fsck.sh ARG...: run VALGRIND_FSCK (fsck.erofs) under valgrind's
# memcheck; used as FSCK by "make valgrind-check". Any memcheck error, or a
# definite or indirect leak, ends it with exit 99, which no test accepts.
exec valgrind --tool=memcheck --quiet --error-exitcode=99 \
	--leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect \
	"${VALGRIND_FSCK:?VALGRIND_FSCK must name fsck.erofs}" "$@"
