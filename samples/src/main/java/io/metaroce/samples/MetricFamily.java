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
package io.metaroce.samples;

import io.prometheus.metrics.model.snapshots.Unit;

/**
 * One metric family the exporter serves: its Prometheus name, type, help text and base unit, and the factor that
 * turns a driver counter's raw value into that unit (nanoseconds and milliseconds into seconds).
 * <p>
 * A counter family's name has no {@code _total}: the text format appends it.
 */
final class MetricFamily
{
    /**
     * Prometheus metric type of a family.
     */
    enum Type
    {
        /**
         * Monotonically increasing count, exposed with {@code _total}.
         */
        COUNTER,

        /**
         * Value that goes up and down: positions, states, windows, round-trip times.
         */
        GAUGE,

        /**
         * A counter whose meaning the exporter does not know (application counters, unmapped driver counters).
         */
        UNKNOWN
    }

    private final String name;
    private final Type type;
    private final String help;
    private final Unit unit;
    private final double scale;

    private MetricFamily(final String name, final Type type, final String help, final Unit unit, final double scale)
    {
        this.name = name;
        this.type = type;
        this.help = help;
        this.unit = unit;
        this.scale = scale;
    }

    static MetricFamily counter(final String name, final String help)
    {
        return new MetricFamily(name, Type.COUNTER, help, null, 1.0);
    }

    static MetricFamily byteCounter(final String name, final String help)
    {
        return new MetricFamily(name, Type.COUNTER, help, Unit.BYTES, 1.0);
    }

    static MetricFamily gauge(final String name, final String help)
    {
        return new MetricFamily(name, Type.GAUGE, help, null, 1.0);
    }

    static MetricFamily byteGauge(final String name, final String help)
    {
        return new MetricFamily(name, Type.GAUGE, help, Unit.BYTES, 1.0);
    }

    static MetricFamily nanosGauge(final String name, final String help)
    {
        return new MetricFamily(name, Type.GAUGE, help, Unit.SECONDS, 1e-9);
    }

    static MetricFamily millisTimestampGauge(final String name, final String help)
    {
        return new MetricFamily(name, Type.GAUGE, help, Unit.SECONDS, 1e-3);
    }

    static MetricFamily unknown(final String name, final String help)
    {
        return new MetricFamily(name, Type.UNKNOWN, help, null, 1.0);
    }

    String name()
    {
        return name;
    }

    Type type()
    {
        return type;
    }

    String help()
    {
        return help;
    }

    Unit unit()
    {
        return unit;
    }

    /**
     * A raw counter value in the family's unit.
     *
     * @param raw value of the counter.
     * @return the value to expose.
     */
    double value(final long raw)
    {
        return raw * scale;
    }
}
