package sonic

import (
	"strconv"
	"strings"
)

// SONiC keeps more than its configuration in Redis: APPL_DB (what
// orchagent is told), STATE_DB (what the switch reports) and COUNTERS_DB.
// Their dumps look like CONFIG_DB's (sonic-db-dump and the mock tables of
// sonic-utilities write "TABLE|key" rows), but their tables are other
// ones: BUFFER_PG_TABLE, PORT_TABLE, BUFFER_MAX_PARAM_TABLE,
// TRANSCEIVER_INFO, COUNTERS_PORT_NAME_MAP. Read as a config they hold
// nothing lint checks, and saying "no QoS tables" would hide what they are.

// stateOnly are STATE_DB tables whose names do not end in _TABLE.
var stateOnly = map[string]bool{
	"TRANSCEIVER_INFO": true, "TRANSCEIVER_STATUS": true, "TRANSCEIVER_STATUS_SW": true, "TRANSCEIVER_PM": true,
	"TRANSCEIVER_DOM_SENSOR": true, "TRANSCEIVER_DOM_THRESHOLD": true, "TRANSCEIVER_FIRMWARE_INFO": true,
	"EEPROM_INFO": true, "PORT_COUNTER_CAPABILITIES": true, "QUEUE_COUNTER_CAPABILITIES": true,
	"ALL_SERVICE_STATUS": true, "PROCESS_STATS": true,
}

// configTables are the CONFIG_DB tables whose names end in _TABLE (SONiC's
// YANG models and Configuration.md: ACL, CoPP, flex counters, PBH, DASH).
var configTables = map[string]bool{
	"ACL_TABLE": true, "COPP_TABLE": true, "FLEX_COUNTER_TABLE": true, "PBH_TABLE": true,
	"DASH_ROUTE_TABLE": true, "DASH_VNET_MAPPING_TABLE": true,
}

// stateTable reports a table name APPL_DB, STATE_DB or COUNTERS_DB uses
// and CONFIG_DB does not: "<NAME>_TABLE" but those of configTables,
// COUNTERS_*, a name with a colon (the "TABLE:key" rows of APPL_DB and
// COUNTERS_DB), or a STATE_DB table of stateOnly.
func stateTable(name string) bool {
	switch {
	case configTables[name]:
		return false
	case strings.HasSuffix(name, "_TABLE"), strings.HasPrefix(name, "COUNTERS_"), strings.Contains(name, ":"), stateOnly[name]:
		return true
	}
	return false
}

// StateDump reports a dump whose tables are, more than half of them,
// those of APPL_DB, STATE_DB or COUNTERS_DB, and none a CONFIG_DB table
// lint reads (PORT_QOS_MAP, BUFFER_PG, ...: qos lists them). It returns
// where the first such table is named.
func (db *ConfigDB) StateDump(qos []string) (Value, bool) {
	var first Value
	n, state := 0, 0
	for name, at := range db.tablePos {
		for _, q := range qos {
			if name == q {
				return Value{}, false
			}
		}
		n++
		if !stateTable(name) {
			continue
		}
		state++
		if first.Line == 0 || at.Line < first.Line || at.Line == first.Line && at.Col < first.Col {
			first = at
		}
	}
	return first, n > 0 && 2*state > n
}

// RedisDB returns the first Redis database other than CONFIG_DB that a
// command in data names ("sonic-db-cli STATE_DB ...", "redis-cli -n 6
// ...", the prompt "127.0.0.1:6379[6]>"), and its line (1-based).
func RedisDB(data []byte) (string, int, bool) {
	for i, raw := range strings.Split(string(data), "\n") {
		f := strings.Fields(raw)
		for j, w := range f {
			var name string
			switch {
			case strings.HasSuffix(w, "sonic-db-cli"):
				// sonic-db-cli [-s] [-n NAMESPACE] DB COMMAND...
				for k := j + 1; k < len(f); k++ {
					if f[k] == "-n" || f[k] == "--namespace" {
						k++
						continue
					}
					if !strings.HasPrefix(f[k], "-") {
						name = f[k]
						break
					}
				}
			case strings.HasSuffix(w, "redis-cli"):
				for k := j + 1; k+1 < len(f); k++ {
					if f[k] == "-n" {
						name = redisNumber(f[k+1])
					}
				}
			case strings.Contains(w, ":6379[") && strings.HasSuffix(w, "]>"):
				name = redisNumber(w[strings.Index(w, "[")+1 : len(w)-2])
			}
			if name != "" && name != "CONFIG_DB" && strings.HasSuffix(name, "_DB") {
				return name, i + 1, true
			}
		}
	}
	return "", 0, false
}

// redisNumber names SONiC's Redis database number n (database_config.json).
func redisNumber(n string) string {
	id, err := strconv.Atoi(n)
	if err != nil {
		return ""
	}
	names := []string{"APPL_DB", "ASIC_DB", "COUNTERS_DB", "LOGLEVEL_DB", "CONFIG_DB", "PFC_WD_DB", "STATE_DB", "SNMP_OVERLAY_DB"}
	if id < 0 || id >= len(names) {
		return ""
	}
	return names[id]
}

// DBHolds says what a SONiC Redis database other than CONFIG_DB holds.
func DBHolds(name string) string {
	switch name {
	case "APPL_DB":
		return "what orchagent was told to apply, derived from the configuration"
	case "STATE_DB":
		return "the state the switch reports"
	case "COUNTERS_DB", "PFC_WD_DB":
		return "counters"
	case "ASIC_DB":
		return "the SAI objects programmed into the ASIC"
	}
	return "something other than the configuration"
}

// DatabaseConfig reports SONiC's database_config.json (the Redis instances
// and the databases sonic-db-cli reaches, /var/run/redis/sonic-db/), whose
// upper-case INSTANCES and DATABASES keys read like tables: at is its
// DATABASES key. A config with any other table is not it.
func (db *ConfigDB) DatabaseConfig() (at Value, ok bool) {
	for name := range db.tablePos {
		if name != "INSTANCES" && name != "DATABASES" && name != "VERSION" {
			return Value{}, false
		}
	}
	if _, ok := db.Tables["DATABASES"]["CONFIG_DB"]; !ok {
		return Value{}, false
	}
	return db.tablePos["DATABASES"], true
}
