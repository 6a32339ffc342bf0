# SPDX-License-Identifier: GPL-2.0
# The build rules the host test suites share (tests/unit, tests/threads):
# the core's sources (src/core/) and the suite's own, each compiled into
# $(OUT), linked into $(BIN). The including Makefile sets REPO, OUT, BIN,
# TEST_DIR, CORE_OBJS, TEST_OBJS, CXX, CXXFLAGS, SAN_FLAGS, LDLIBS and
# DEPFLAGS; TEST_CXXFLAGS (the suite's own sources) defaults to CXXFLAGS.
include $(REPO)/tests/verbosity.mk

TEST_CXXFLAGS ?= $(CXXFLAGS)

$(BIN): $(CORE_OBJS) $(TEST_OBJS)
	$(quiet) "  LD      $(@:$(REPO)/%=%)"
	$(Q)$(CXX) $(SAN_FLAGS) -g -o $@ $^ $(LDLIBS)

$(OUT)/core/%.o: $(REPO)/src/core/%.cpp
	@mkdir -p $(dir $@)
	$(quiet) "  CXX     $(<:$(REPO)/%=%) $(SAN_FLAGS)"
	$(Q)$(CXX) $(CXXFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OUT)/test/%.o: $(TEST_DIR)/%.cpp
	@mkdir -p $(dir $@)
	$(quiet) "  CXX     $(<:$(REPO)/%=%)"
	$(Q)$(CXX) $(TEST_CXXFLAGS) $(DEPFLAGS) -c -o $@ $<
