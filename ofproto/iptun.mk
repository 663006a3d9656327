# ovs-iptun: files added to libofproto.  Included from ofproto/automake.mk
# by patches/0015-*.patch.
ofproto_libofproto_la_SOURCES += \
	ofproto/ofproto-dpif-iptun-pmtu.c \
	ofproto/ofproto-dpif-iptun-pmtu.h
