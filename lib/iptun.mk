# ovs-iptun: files added to libopenvswitch.  Included from lib/automake.mk
# by patches/0015-*.patch.
lib_libopenvswitch_la_SOURCES += \
	lib/dp-packet-gro.c \
	lib/dp-packet-gro.h \
	lib/dpif-netdev-iptun-term.c \
	lib/dpif-netdev-iptun-term.h \
	lib/dpif-netdev-iptun-term-key.h \
	lib/dpif-netdev-iptun-term-lookup.h \
	lib/dpif-netdev-iptun-term-payoff.h \
	lib/iptun-pmtu.c \
	lib/iptun-pmtu.h \
	lib/iptun-ports.c \
	lib/iptun-ports.h \
	lib/iptun-reass.c \
	lib/iptun-reass.h \
	lib/netdev-iptun-config.c \
	lib/netdev-native-iptun.c \
	lib/netdev-native-iptun.h \
	lib/netdev-native-iptun-pop.h
