/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registration functions between the shim's own files. The shim translates
 * kernel objects and calls into the C ABI of include/srpt/abi/ and makes no
 * decisions; everything that decides lives in the C++ core.
 */
#ifndef SRPT_SHIM_H
#define SRPT_SHIM_H

#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

int srpt_shim_fabric_register(void);
void srpt_shim_fabric_unregister(void);

int srpt_shim_ib_client_register(void);
void srpt_shim_ib_client_unregister(void);

#endif /* SRPT_SHIM_H */
