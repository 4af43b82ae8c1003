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
package io.metaroce.client.config;

import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Agrona 2 reaches {@code jdk.internal.misc.Unsafe}, which the JVM opens to it only with an {@code --add-exports}
 * flag; without it the first buffer access fails with a bare {@code IllegalAccessError}. The client and the driver
 * check for the export before they touch a buffer and say which flag is missing.
 */
public final class AgronaAccess
{
    private static final String PACKAGE = "jdk.internal.misc";

    private AgronaAccess()
    {
    }

    /**
     * The flag this JVM needs for Agrona.
     *
     * @return {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} when Agrona is on the class path, with
     * the name of its module instead of {@code ALL-UNNAMED} when it is on the module path.
     */
    public static String requiredFlag()
    {
        final Module agrona = UnsafeBuffer.class.getModule();
        return "--add-exports java.base/" + PACKAGE + "=" + (agrona.isNamed() ? agrona.getName() : "ALL-UNNAMED");
    }

    /**
     * Fail unless the JVM exports {@code jdk.internal.misc} to Agrona.
     *
     * @param component that needs it, for the message: {@code the client}, {@code the media driver}.
     * @throws ConfigurationException naming the flag to add.
     */
    public static void check(final String component)
    {
        if (!Object.class.getModule().isExported(PACKAGE, UnsafeBuffer.class.getModule()))
        {
            throw new ConfigurationException(component + " needs the JVM flag " + requiredFlag() + " (for Agrona), " +
                "which this JVM was started without: add it to the java command (or to JDK_JAVA_OPTIONS)");
        }
    }
}
