// SPDX-License-Identifier: GPL-2.0-only
/*
 * ovs-iptun: the ipip (113) and fou (114) vport types for the stock
 * openvswitch.ko.  Each vport owns one metadata-mode tunnel device
 * (iptun-dev.c) and attaches it with ovs_netdev_link(), the way OVS's own
 * vxlan and gre vports attach theirs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "datapath.h"
#include "vport.h"
#include "vport-netdev.h"

#include "iptun.h"

/* Not in the 6.1 uapi header: OVS userspace defines these numbers. */
#define OVS_VPORT_TYPE_IPIP 113
#define OVS_VPORT_TYPE_FOU 114

static struct vport_ops ovs_ipip_vport_ops;
static struct vport_ops ovs_fou_vport_ops;

static struct vport *iptun_vport_create(const struct vport_parms *parms,
					struct vport_ops *ops, bool fou)
{
	struct net *net = ovs_dp_get_net(parms->dp);
	struct net_device *dev;
	struct vport *vport;
	__be16 dst_port = 0;
	int err;

	if (fou) {
		struct nlattr *a = NULL;

		if (parms->options)
			a = nla_find_nested(parms->options,
					    OVS_TUNNEL_ATTR_DST_PORT);
		/* FOU has no assigned port: userspace must give one. */
		if (!a || nla_len(a) != sizeof(u16) || !nla_get_u16(a))
			return ERR_PTR(-EINVAL);
		dst_port = htons(nla_get_u16(a));
	}

	vport = ovs_vport_alloc(0, ops, parms);
	if (IS_ERR(vport))
		return vport;

	rtnl_lock();
	dev = iptun_dev_create(net, parms->name, fou, dst_port);
	if (IS_ERR(dev)) {
		rtnl_unlock();
		ovs_vport_free(vport);
		return ERR_CAST(dev);
	}

	err = dev_change_flags(dev, dev->flags | IFF_UP, NULL);
	if (err < 0) {
		rtnl_delete_link(dev, 0, NULL);
		rtnl_unlock();
		ovs_vport_free(vport);
		return ERR_PTR(err);
	}
	rtnl_unlock();

	return ovs_netdev_link(vport, parms->name);
}

static struct vport *ipip_vport_create(const struct vport_parms *parms)
{
	return iptun_vport_create(parms, &ovs_ipip_vport_ops, false);
}

static struct vport *fou_vport_create(const struct vport_parms *parms)
{
	return iptun_vport_create(parms, &ovs_fou_vport_ops, true);
}

static int fou_get_options(const struct vport *vport, struct sk_buff *skb)
{
	const struct iptun_dev *t = netdev_priv(vport->dev);

	if (nla_put_u16(skb, OVS_TUNNEL_ATTR_DST_PORT, ntohs(t->dst_port)))
		return -EMSGSIZE;
	return 0;
}

static struct vport_ops ovs_ipip_vport_ops = {
	.type		= OVS_VPORT_TYPE_IPIP,
	.create		= ipip_vport_create,
	.send		= dev_queue_xmit,
	.destroy	= ovs_netdev_tunnel_destroy,
};

static struct vport_ops ovs_fou_vport_ops = {
	.type		= OVS_VPORT_TYPE_FOU,
	.create		= fou_vport_create,
	.get_options	= fou_get_options,
	.send		= dev_queue_xmit,
	.destroy	= ovs_netdev_tunnel_destroy,
};

static int __init ovs_iptun_init(void)
{
	int err;

	err = iptun_dev_init_module();
	if (err)
		return err;
	err = ovs_vport_ops_register(&ovs_ipip_vport_ops);
	if (err)
		goto err_dev;
	err = ovs_vport_ops_register(&ovs_fou_vport_ops);
	if (err)
		goto err_ipip;
	pr_info("ipip (vport type %d) and fou (vport type %d) registered\n",
		OVS_VPORT_TYPE_IPIP, OVS_VPORT_TYPE_FOU);
	return 0;

err_ipip:
	ovs_vport_ops_unregister(&ovs_ipip_vport_ops);
err_dev:
	iptun_dev_exit_module();
	return err;
}

static void __exit ovs_iptun_exit(void)
{
	ovs_vport_ops_unregister(&ovs_fou_vport_ops);
	ovs_vport_ops_unregister(&ovs_ipip_vport_ops);
	iptun_dev_exit_module();
}

module_init(ovs_iptun_init);
module_exit(ovs_iptun_exit);

MODULE_DESCRIPTION("OVS: ipip and fou tunnel ports (ovs-iptun)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("vport-type-113");
MODULE_ALIAS("vport-type-114");
MODULE_ALIAS_RTNL_LINK("ovs_iptun");
