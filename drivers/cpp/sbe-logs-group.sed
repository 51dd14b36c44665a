# SBE 1.30.0's C++ for schemas/log.sbe.xml (CMakeLists.txt): the group `logs` of message
# Logs is generated as a class Logs nested in class Logs, which C++ refuses. This renames
# the nested class, and every use of it, LogsGroup. Run with sed -E on Logs.h.
/^    class Logs$/,/^    };$/s/\bLogs\b/LogsGroup/g
s/^(    )Logs m_logs;/\1LogsGroup m_logs;/
s/inline Logs &logs\(\)/inline LogsGroup \&logs()/
s/^(    )Logs &logsCount\(/\1LogsGroup \&logsCount(/
s/\(Logs &logs\)/(LogsGroup \&logs)/
s/\bLogs::(sbeHeaderSize|computeLength)\b/LogsGroup::\1/g
