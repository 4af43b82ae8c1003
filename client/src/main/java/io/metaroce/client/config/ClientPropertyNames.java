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

import io.metaroce.client.MetaRoce;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The client's property names ({@link MetaRoce.Configuration}, {@link PropertyRegistry#UNKNOWN_PROPERTIES_PROP_NAME})
 * and, so that an application given the same settings as its driver (one properties file, one
 * {@code JAVA_OPTS}) starts with only the client on its class path, the names of the media driver and its transport
 * engine, from the resource {@value #DRIVER_NAMES_RESOURCE} (kept equal to the driver's own list by a test of the
 * media driver).
 */
public final class ClientPropertyNames implements PropertyNames
{
    /**
     * Class-path resource listing the media driver's property names, one a line.
     */
    public static final String DRIVER_NAMES_RESOURCE = "io/metaroce/client/config/driver-property-names.txt";

    /**
     * {@inheritDoc}
     */
    public String component()
    {
        return "client";
    }

    /**
     * {@inheritDoc}
     */
    public Collection<String> names()
    {
        final List<String> names = PropertyRegistry.declaredNames(MetaRoce.Configuration.class, PropertyRegistry.class);
        names.addAll(driverNames());

        return names;
    }

    /**
     * The media driver's property names as the client knows them.
     *
     * @return the names of {@value #DRIVER_NAMES_RESOURCE}.
     */
    public static List<String> driverNames()
    {
        final List<String> names = new ArrayList<>();
        try (InputStream in = ClientPropertyNames.class.getClassLoader().getResourceAsStream(DRIVER_NAMES_RESOURCE))
        {
            if (null == in)
            {
                throw new IllegalStateException(DRIVER_NAMES_RESOURCE + " is missing from the client jar");
            }
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while (null != (line = reader.readLine()))
            {
                if (!line.isBlank())
                {
                    names.add(line.trim());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }

        return names;
    }
}
