// SPDX-License-Identifier: MIT
#include "eventquery.h"

namespace syncscope::ui {

EventQuery::EventQuery(const QString &text, bool regex, bool caseSensitive)
    : m_text(text)
    , m_regex(regex)
    , m_case(caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive)
{
    if (regex && !text.isEmpty()) {
        m_re.setPattern(text);
        m_re.setPatternOptions(caseSensitive ? QRegularExpression::NoPatternOption
                                             : QRegularExpression::CaseInsensitiveOption);
        if (!m_re.isValid())
            m_error = m_re.errorString();
    }
    m_number = text.trimmed().toLongLong(&m_isNumber);
}

bool EventQuery::nameMatches(std::string_view n) const
{
    const QString name = QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
    return m_regex ? m_re.match(name).hasMatch() : name.contains(m_text, m_case);
}

bool EventQuery::idMatches(const KinetoEvent &e) const
{
    return m_isNumber && ((e.has(KinetoEvent::HasCorrelation) && e.correlation == m_number) ||
                          (e.has(KinetoEvent::HasExternalId) && e.externalId == m_number) ||
                          (e.has(KinetoEvent::HasRfId) && e.rfId == m_number));
}

} // namespace syncscope::ui
