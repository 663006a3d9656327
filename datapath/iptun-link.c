// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-iptun: the rtnetlink kinds of the tunnel devices (iptun-dev.c).
 *
 *   iptun_ipip  IPv4 and IPv6 in IPv4 or IPv6 (IP protocols 4 and 41); no
 *               attributes.  One device per network namespace can be up:
 *               it receives every such packet that no Linux ipip, sit or
 *               ip6tnl device claims.
 *   iptun_fou   IPv4 or IPv6 in UDP over IPv4 or IPv6 (foo-over-UDP,
 *               direct); IFLA_IPTUN_FOU_PORT, the UDP port it listens on,
 *               is required; IFLA_IPTUN_FOU_IPPROTO (4, the default, or
 *               41) is the one inner protocol it sends, as Linux's
 *               "ip fou add port N ipproto P".  It receives both.
 *   iptun_gue   IPv4 and IPv6 in GUE (Generic UDP Encapsulation,
 *               draft-ietf-intarea-gue) over IPv4 or IPv6, as Linux's
 *               "ip fou add port N gue" receives it and its ipip, sit
 *               and ip6tnl devices "encap gue" send it; IFLA_IPTUN_FOU_PORT
 *               is required; it sends and receives both inner protocols.
 *
 * All are metadata-mode ("external", collect_md) devices: every packet
 * sent needs tunnel metadata (addresses, TOS, TTL, DF; for fou and gue
 * the checksum flag and optionally the UDP destination port), and every
 * packet received carries the outer headers as tunnel metadata.  Open
 * vSwitch creates them over rtnetlink (lib/dpif-netlink-rtnl.c) and adds
 * them to its kernel datapath as plain netdev ports; routes with
 * "encap ip", tc's tunnel_key action and eBPF's bpf_skb_set_tunnel_key()
 * can use them too.  The module autoloads through the rtnl-link-<kind>
 * aliases.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "iptun.h"

static struct rtnl_link_ops iptun_ipip_link_ops;
static struct rtnl_link_ops iptun_fou_link_ops;
static struct rtnl_link_ops iptun_gue_link_ops;

static void iptun_ipip_setup(struct net_device *dev)
{
	dev->rtnl_link_ops = &iptun_ipip_link_ops;
	iptun_dev_setup(dev);
}

static void iptun_fou_setup(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);

	t->fou = true;
	dev->rtnl_link_ops = &iptun_fou_link_ops;
	iptun_dev_setup(dev);
}

static void iptun_gue_setup(struct net_device *dev)
{
	struct iptun_dev *t = netdev_priv(dev);

	t->fou = true;
	t->gue = true;
	dev->rtnl_link_ops = &iptun_gue_link_ops;
	iptun_dev_setup(dev);
}

static const struct nla_policy iptun_fou_policy[IFLA_IPTUN_FOU_MAX + 1] = {
	[IFLA_IPTUN_FOU_PORT] = { .type = NLA_U16 },
	[IFLA_IPTUN_FOU_IPPROTO] = { .type = NLA_U8 },
};

static int iptun_fou_validate(struct nlattr *tb[], struct nlattr *data[],
			      struct netlink_ext_ack *extack)
{
	/* FOU has no assigned port: the creator must give one. */
	if (!data || !data[IFLA_IPTUN_FOU_PORT] ||
	    !nla_get_be16(data[IFLA_IPTUN_FOU_PORT])) {
		NL_SET_ERR_MSG(extack,
			       "iptun_fou: a UDP port (IFLA_IPTUN_FOU_PORT) is required");
		return -EINVAL;
	}
	if (data[IFLA_IPTUN_FOU_IPPROTO] &&
	    nla_get_u8(data[IFLA_IPTUN_FOU_IPPROTO]) != IPPROTO_IPIP &&
	    nla_get_u8(data[IFLA_IPTUN_FOU_IPPROTO]) != IPPROTO_IPV6) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPTUN_FOU_IPPROTO],
				    "iptun_fou: the inner protocol (IFLA_IPTUN_FOU_IPPROTO) must be 4 or 41");
		return -EINVAL;
	}
	return 0;
}

static int iptun_gue_validate(struct nlattr *tb[], struct nlattr *data[],
			      struct netlink_ext_ack *extack)
{
	if (!data || !data[IFLA_IPTUN_FOU_PORT] ||
	    !nla_get_be16(data[IFLA_IPTUN_FOU_PORT])) {
		NL_SET_ERR_MSG(extack,
			       "iptun_gue: a UDP port (IFLA_IPTUN_FOU_PORT) is required");
		return -EINVAL;
	}
	/* GUE names the inner protocol in each packet. */
	if (data[IFLA_IPTUN_FOU_IPPROTO]) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPTUN_FOU_IPPROTO],
				    "iptun_gue: no inner protocol (IFLA_IPTUN_FOU_IPPROTO): a gue device carries both");
		return -EINVAL;
	}
	return 0;
}

static int iptun_newlink(struct net *net, struct net_device *dev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct iptun_dev *t = netdev_priv(dev);

	if (t->fou)
		t->dst_port = nla_get_be16(data[IFLA_IPTUN_FOU_PORT]);
	if (t->fou && !t->gue)
		t->ipproto = data[IFLA_IPTUN_FOU_IPPROTO] ?
			     nla_get_u8(data[IFLA_IPTUN_FOU_IPPROTO]) :
			     IPPROTO_IPIP;
	return register_netdevice(dev);
}

/* No attributes, but an IFLA_INFO_DATA nest all the same (empty), which
 * Open vSwitch's check of an existing device expects.
 */
static int iptun_ipip_fill_info(struct sk_buff *skb,
				const struct net_device *dev)
{
	return 0;
}

static size_t iptun_fou_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(__be16)) +	/* IFLA_IPTUN_FOU_PORT */
	       nla_total_size(sizeof(u8));	/* IFLA_IPTUN_FOU_IPPROTO */
}

static int iptun_fou_fill_info(struct sk_buff *skb,
			       const struct net_device *dev)
{
	const struct iptun_dev *t = netdev_priv(dev);

	if (nla_put_be16(skb, IFLA_IPTUN_FOU_PORT, t->dst_port) ||
	    nla_put_u8(skb, IFLA_IPTUN_FOU_IPPROTO, t->ipproto))
		return -EMSGSIZE;
	return 0;
}

static size_t iptun_gue_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(__be16));	/* IFLA_IPTUN_FOU_PORT */
}

static int iptun_gue_fill_info(struct sk_buff *skb,
			       const struct net_device *dev)
{
	const struct iptun_dev *t = netdev_priv(dev);

	if (nla_put_be16(skb, IFLA_IPTUN_FOU_PORT, t->dst_port))
		return -EMSGSIZE;
	return 0;
}

static struct rtnl_link_ops iptun_ipip_link_ops __read_mostly = {
	.kind		= "iptun_ipip",
	.priv_size	= sizeof(struct iptun_dev),
	.setup		= iptun_ipip_setup,
	.newlink	= iptun_newlink,
	.fill_info	= iptun_ipip_fill_info,
};

static struct rtnl_link_ops iptun_fou_link_ops __read_mostly = {
	.kind		= "iptun_fou",
	.maxtype	= IFLA_IPTUN_FOU_MAX,
	.policy		= iptun_fou_policy,
	.priv_size	= sizeof(struct iptun_dev),
	.setup		= iptun_fou_setup,
	.validate	= iptun_fou_validate,
	.newlink	= iptun_newlink,
	.get_size	= iptun_fou_get_size,
	.fill_info	= iptun_fou_fill_info,
};

static struct rtnl_link_ops iptun_gue_link_ops __read_mostly = {
	.kind		= "iptun_gue",
	.maxtype	= IFLA_IPTUN_FOU_MAX,
	.policy		= iptun_fou_policy,
	.priv_size	= sizeof(struct iptun_dev),
	.setup		= iptun_gue_setup,
	.validate	= iptun_gue_validate,
	.newlink	= iptun_newlink,
	.get_size	= iptun_gue_get_size,
	.fill_info	= iptun_gue_fill_info,
};

static int __init iptun_init_module(void)
{
	int err;

	err = iptun_dev_init_module();
	if (err)
		return err;
	err = rtnl_link_register(&iptun_ipip_link_ops);
	if (err)
		goto err_dev;
	err = rtnl_link_register(&iptun_fou_link_ops);
	if (err)
		goto err_ipip;
	err = rtnl_link_register(&iptun_gue_link_ops);
	if (err)
		goto err_fou;
	return 0;

err_fou:
	rtnl_link_unregister(&iptun_fou_link_ops);
err_ipip:
	rtnl_link_unregister(&iptun_ipip_link_ops);
err_dev:
	iptun_dev_exit_module();
	return err;
}

static void __exit iptun_exit_module(void)
{
	/* Deletes every device of all kinds, in every namespace. */
	rtnl_link_unregister(&iptun_gue_link_ops);
	rtnl_link_unregister(&iptun_fou_link_ops);
	rtnl_link_unregister(&iptun_ipip_link_ops);
	iptun_dev_exit_module();
}

module_init(iptun_init_module);
module_exit(iptun_exit_module);

MODULE_DESCRIPTION("ovs-iptun: metadata-mode ipip, fou and gue tunnel devices");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RTNL_LINK("iptun_ipip");
MODULE_ALIAS_RTNL_LINK("iptun_fou");
MODULE_ALIAS_RTNL_LINK("iptun_gue");
