# synthetic: the NCCL setting of hosts marking RoCE with DSCP 26, as the ROCm guide the switch config comes from has them mark it
export NCCL_IB_TC=106
