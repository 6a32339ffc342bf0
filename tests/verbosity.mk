# SPDX-License-Identifier: GPL-2.0
# Included by the host test Makefiles (tests/unit, tests/threads,
# tests/fuzz): V=1 shows the full compiler command lines; otherwise each
# step prints one short line ($(quiet) "  CXX     file") and hides its
# command ($(Q)).
ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @echo
endif
