/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.datapath.settings;

/**
 * The loss-inference rules a sender runs besides the retransmission timeout, which is always in force. All are on by
 * default; switching rules off serves experiments and the tests that prove each rule detects what it should.
 */
public final class LossDetection
{
    /**
     * Retransmit a PSN a NACK(INFERRED_LOSS) names ({@code nack}).
     */
    public static final int NACK = 1;

    /**
     * Per-path sequence gap ({@code pathseq}).
     */
    public static final int PATH_SEQ = 1 << 1;

    /**
     * Out-of-order distance ({@code ooo}).
     */
    public static final int OUT_OF_ORDER = 1 << 2;

    /**
     * Time-based reordering window, RACK ({@code rack}).
     */
    public static final int RACK = 1 << 3;

    /**
     * Tail-loss probe ({@code tlp}).
     */
    public static final int TAIL_LOSS_PROBE = 1 << 4;

    /**
     * Every rule.
     */
    public static final int ALL = NACK | PATH_SEQ | OUT_OF_ORDER | RACK | TAIL_LOSS_PROBE;

    private static final String[] NAMES = { "nack", "pathseq", "ooo", "rack", "tlp" };

    private LossDetection()
    {
    }

    /**
     * Parse a comma-separated list of rule names ({@code nack, pathseq, ooo, rack, tlp}, or {@code all}, or empty
     * for none).
     *
     * @param spec the list.
     * @return the bit set of rules, or -1 when a name is unknown.
     */
    public static int parse(final String spec)
    {
        if (null == spec)
        {
            return -1;
        }

        int rules = 0;
        int start = 0;
        final int length = spec.length();
        while (start <= length)
        {
            int end = spec.indexOf(',', start);
            if (end < 0)
            {
                end = length;
            }
            final String name = spec.substring(start, end).trim();
            if (!name.isEmpty())
            {
                final int rule = rule(name);
                if (rule < 0)
                {
                    return -1;
                }
                rules |= rule;
            }
            start = end + 1;
        }

        return rules;
    }

    private static int rule(final String name)
    {
        if ("all".equals(name))
        {
            return ALL;
        }
        for (int i = 0; i < NAMES.length; i++)
        {
            if (NAMES[i].equals(name))
            {
                return 1 << i;
            }
        }
        return -1;
    }
}
