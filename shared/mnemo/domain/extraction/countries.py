"""The English names of the countries, and of the cities most users move to for work, for telling a place from a
workplace: "first salary in Canada", "first week ko sa Dubai" name where the user works, not who they work for.

Like the names of languages (languages.py), the names of countries are few and fixed: an exact list is the right
tool. The cities are those that draw workers from abroad, which "first week in X" most often names.
"""

from __future__ import annotations

COUNTRIES = frozenset("""
afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan bahamas bahrain bangladesh
barbados belarus belgium belize benin bhutan bolivia bosnia botswana brazil brunei bulgaria burkina burundi cambodia
cameroon canada chad chile china colombia comoros congo croatia cuba cyprus czechia denmark djibouti dominica ecuador
egypt england eritrea estonia eswatini ethiopia fiji finland france gabon gambia georgia germany ghana greece grenada
guatemala guinea guyana haiti honduras hungary iceland india indonesia iran iraq ireland israel italy jamaica japan
jordan kazakhstan kenya kiribati korea kosovo kuwait kyrgyzstan laos latvia lebanon lesotho liberia libya
liechtenstein lithuania luxembourg madagascar malawi malaysia maldives mali malta mauritania mauritius mexico
micronesia moldova monaco mongolia montenegro morocco mozambique myanmar namibia nauru nepal netherlands holland
nicaragua niger nigeria norway oman pakistan palau palestine panama paraguay peru philippines poland portugal qatar
romania russia rwanda samoa senegal serbia seychelles singapore slovakia slovenia somalia spain sri lanka sudan
suriname sweden switzerland syria taiwan tajikistan tanzania thailand togo tonga trinidad tunisia turkey turkmenistan
tuvalu uganda ukraine uae emirates uk usa us america uruguay uzbekistan vanuatu vietnam yemen zambia zimbabwe scotland
wales saudi arabia ksa hongkong macau europe asia africa abroad overseas
dubai abu dhabi riyadh jeddah dammam doha muscat manama kuwait city hong kong tokyo osaka seoul taipei london
toronto vancouver calgary sydney melbourne auckland new york berlin munich paris milan rome madrid barcelona dublin
amsterdam zurich geneva vienna oslo stockholm copenhagen helsinki warsaw prague lisbon athens istanbul cairo nairobi
lagos johannesburg manila cebu bangkok jakarta kuala lumpur mumbai delhi bangalore karachi lahore dhaka
""".split()) | frozenset({"hong kong", "abu dhabi", "new zealand", "south africa", "south korea", "sri lanka",
                          "saudi arabia", "united states", "united kingdom", "new york", "kuala lumpur", "costa rica",
                          "el salvador", "puerto rico", "czech republic", "north macedonia", "papua new guinea"})


def is_a_country_or_city_abroad(name: str) -> bool:
    """Whether ``name`` is a country's name or a city's of those the list holds ("Canada", "Hong Kong", "Dubai")."""
    return name.lower().strip(" .,!?") in COUNTRIES
