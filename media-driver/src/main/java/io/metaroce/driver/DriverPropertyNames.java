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

import io.metaroce.client.config.PropertyNames;
import io.metaroce.client.config.PropertyRegistry;

import java.util.Collection;

/**
 * The media driver's property names for the {@link PropertyRegistry}: those of its {@link Configuration} and of its
 * transport engine ({@link io.metaroce.datapath.settings.Configuration}), whose engines only a driver builds. The
 * driver also reads {@code metaroce.dir} and {@code metaroce.driver.timeout}, which the client declares.
 */
public final class DriverPropertyNames implements PropertyNames
{
    /**
     * {@inheritDoc}
     */
    public String component()
    {
        return "media driver";
    }

    /**
     * {@inheritDoc}
     */
    public Collection<String> names()
    {
        return PropertyRegistry.declaredNames(Configuration.class, io.metaroce.datapath.settings.Configuration.class);
    }
}
