# ovs-iptun autotest files.  Included from tests/automake.mk by
# patches/0012-*.patch.
TESTSUITE_AT += \
	tests/iptun.at \
	tests/iptun-macros.at \
	tests/iptun-ipip.at \
	tests/iptun-fou.at \
	tests/iptun-gue.at \
	tests/iptun-term.at \
	tests/iptun-malformed.at \
	tests/iptun-reass.at \
	tests/iptun-pmtu.at \
	tests/iptun-tso.at \
	tests/iptun-gro.at \
	tests/iptun-stats.at \
	tests/iptun-sampling.at \
	tests/iptun-config.at \
	tests/iptun-scale.at \
	tests/iptun-controller.at \
	tests/iptun-tools.at
SYSTEM_USERSPACE_TESTSUITE_AT += \
	tests/system-iptun.at \
	tests/system-iptun-linux.at \
	tests/system-iptun-kmod.at
EXTRA_DIST += \
	tests/iptun-tcp-transfer.py \
	tests/iptun-pcap-summary.py \
	tests/iptun-osken-app.py \
	tests/iptun-malformed.py \
	tests/iptun-pmtu.py \
	tests/iptun-segments.py \
	tests/iptun-ipfix-collector.py \
	tests/iptun-scale.py \
	tests/iptun-term-diff.py \
	tests/iptun-gro-diff.py

# libFuzzer target for the ipip and fou receive paths ("make fuzz" at the
# top level builds it with clang in its own build directory; see
# utilities/ovs-iptun-fuzz.sh).
EXTRA_PROGRAMS += tests/iptun-fuzz-pop
tests_iptun_fuzz_pop_SOURCES = tests/iptun-fuzz-pop.c
tests_iptun_fuzz_pop_LDADD = lib/libopenvswitch.la
tests_iptun_fuzz_pop_LDFLAGS = $(LIB_FUZZING_ENGINE)

# "ovstest test-iptun-odp-execute": datapath actions on a whole batch, call
# by call.
tests_ovstest_SOURCES += tests/test-iptun-odp-execute.c
