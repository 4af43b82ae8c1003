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
package io.metaroce.perf.rig;

import org.agrona.concurrent.status.CountersReader;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Totals of a driver's datapath counters by name, summed over connections and paths, for the end of a run: one
 * entry per counter name ({@code snd-retransmits}) and per name and reason ({@code snd-retransmits reason=rack}).
 * Read once when a run ends, not on a measured path.
 */
final class CounterTotals
{
    private CounterTotals()
    {
    }

    /**
     * Sum the counters whose names are given, in the order given.
     *
     * @param counters of the driver.
     * @param names    counter names, the label up to its colon, for example {@code path-state-changes}.
     * @return {@code name=value} pairs separated by spaces, reasons as {@code name[reason]=value}.
     */
    static String of(final CountersReader counters, final String... names)
    {
        final Map<String, Long> totals = new LinkedHashMap<>();
        for (final String name : names)
        {
            totals.put(name, 0L);
        }

        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final int colon = label.indexOf(':');
            if (colon > 0 && totals.containsKey(label.substring(0, colon)))
            {
                final int reason = label.indexOf(" reason=");
                final String key = reason < 0 ? label.substring(0, colon) :
                    label.substring(0, colon) + "[" + label.substring(reason + " reason=".length()) + "]";
                totals.merge(key, counters.getCounterValue(counterId), Long::sum);
            }
        });

        final StringBuilder builder = new StringBuilder();
        totals.forEach((key, value) ->
        {
            if (value != 0)
            {
                builder.append(builder.length() == 0 ? "" : " ").append(key).append('=').append(value);
            }
        });

        return builder.toString();
    }
}
