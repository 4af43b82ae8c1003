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
package io.metaroce.driver;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version and commit the media driver was built from, read from two resources the build writes beside this
 * class: {@code driver-version.properties} (the Maven project version, filtered) and
 * {@code driver-commit.properties} (the commit, from {@code git log} when the build runs in a git work tree).
 * Either one missing reads as {@value #UNKNOWN}: a class loaded from a build that did not write it, or a source
 * archive built without git. Not the CnC layout version, which only changes with the CnC file's layout.
 */
public final class DriverVersion
{
    /**
     * What {@link #version()} and {@link #commit()} return when the build did not record them.
     */
    public static final String UNKNOWN = "unknown";

    private static final String VERSION = read("driver-version.properties", "version");
    private static final String COMMIT = read("driver-commit.properties", "commit");

    private DriverVersion()
    {
    }

    /**
     * The version of the driver, as the build named it.
     *
     * @return a version such as {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}, or {@value #UNKNOWN}.
     */
    public static String version()
    {
        return VERSION;
    }

    /**
     * The commit the driver was built from.
     *
     * @return the full hexadecimal commit id, or {@value #UNKNOWN}.
     */
    public static String commit()
    {
        return COMMIT;
    }

    /**
     * The version and the commit's first 12 digits, for a banner or a log line.
     *
     * @return e.g. {@code 0.1.0-SNAPSHOT (commit d1ed80801857)}.
     */
    public static String describe()
    {
        return VERSION + " (commit " + (COMMIT.length() > 12 ? COMMIT.substring(0, 12) : COMMIT) + ")";
    }

    private static String read(final String resource, final String key)
    {
        try (InputStream in = DriverVersion.class.getResourceAsStream(resource))
        {
            if (null == in)
            {
                return UNKNOWN;
            }
            final Properties properties = new Properties();
            properties.load(in);
            final String value = properties.getProperty(key, "").strip();
            // An unfiltered resource (run from sources without the build's resource step) still holds "${...}".
            return value.isEmpty() || value.startsWith("${") ? UNKNOWN : value;
        }
        catch (final IOException ex)
        {
            return UNKNOWN;
        }
    }
}
